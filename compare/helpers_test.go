package compare_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
)

// cellFigures are the figures of one synthetic repetition.
type cellFigures struct {
	throughput, p99 float64 // acquisitions/s, µs
	overlaps        int64
	serverCPU       float64 // µs per acquisition; 0: no server figures
}

// repeated builds the repetitions of one cell of variant with 8 clients,
// one per figures, numbered from 1.
func repeated(variant string, reps ...cellFigures) []record.Cell {
	var cells []record.Cell
	for i, f := range reps {
		c := record.Cell{
			Variant: variant, Client: "rueidis", Topology: "local:single", Clients: 8, Keys: 1, Limit: 1,
			Repetition: i + 1, ElapsedS: 1, ThroughputPerS: f.throughput, Acquisitions: int64(f.throughput),
		}
		c.AcquireLatencyUS.P50 = f.p99 / 10
		c.AcquireLatencyUS.P99 = f.p99
		c.AcquireLatencyUS.P999 = f.p99 * 1.5
		c.Violations.Overlaps = f.overlaps
		if f.serverCPU > 0 {
			c.Server = &record.ServerCost{CPUMicrosPerAcquisition: f.serverCPU}
		}
		cells = append(cells, c)
	}
	return cells
}

// figures makes one cellFigures per throughput, with p99 and server CPU
// fixed apart from a small jitter.
func figures(p99 float64, throughputs ...float64) []cellFigures {
	var fs []cellFigures
	for i, t := range throughputs {
		fs = append(fs, cellFigures{throughput: t, p99: p99 + float64(i*7%5), serverCPU: 25 + float64(i%3)})
	}
	return fs
}

// newRecord is a synthetic record of the cells, repetitions interleaved like
// a run's.
func newRecord(t *testing.T, runID string, hold string, cells ...[]record.Cell) *record.Record {
	t.Helper()
	rec := &record.Record{
		Schema: record.SchemaVersion, Tool: "lockbench", RunID: runID,
		Started:  time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Config:   record.RunConfig{Client: "rueidis", TTL: 10 * time.Second, Workload: record.Workload{Keys: 1, Hold: hold}},
		Topology: record.TopologyInfo{Name: "local:single", ServerVersion: "7.0.15", Representative: true},
	}
	for rep := 0; ; rep++ {
		added := false
		for _, cs := range cells {
			if rep < len(cs) {
				rec.Cells = append(rec.Cells, cs[rep])
				rec.Config.Repeat = max(rec.Config.Repeat, rep+1)
				added = true
			}
		}
		if !added {
			return rec
		}
	}
}
