// Package recordtest builds records for tests the way a run builds them:
// from real recorders, through record.NewCell. It is for the tests of the
// packages that read records (record, render) and links no package that
// runs a benchmark.
package recordtest

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/record"
)

// SampleOutcome is a cell's outcome from real recorders: 1,000
// acquisitions of 1 to 1,000 µs in 2 s, 500 busy attempts, 3,000
// commands.
func SampleOutcome() metrics.CellSummary {
	now := time.Now()
	rec := metrics.NewRecorder(now)
	for i := 1; i <= 1000; i++ {
		d := time.Duration(i) * time.Microsecond
		rec.Acquired(now, d, d)
		rec.Released(50 * time.Microsecond)
		rec.Held(time.Millisecond)
		rec.Add(now, metrics.Attempt)
	}
	for range 500 {
		rec.Add(now, metrics.Attempt)
		rec.Add(now, metrics.Busy)
	}
	out := metrics.CellSummary{
		Measured: metrics.Merge([]*metrics.Recorder{rec}, []int64{1000}),
		Warmup:   metrics.Merge(nil, nil),
		Handoff:  oracle.New(1, 1).Handoff(),
		Elapsed:  2 * time.Second,
	}
	out.Measured.Commands = 3000
	return out
}

// Sample is a record of one cell (lua-release, 16 clients) built from
// SampleOutcome: 1,000 acquisitions, 500 busy attempts, 3 overlaps and
// 2 lost updates.
func Sample(t testing.TB) *record.Record {
	t.Helper()
	out := SampleOutcome()
	cell, err := record.NewCell(out, oracle.Report{Overlaps: 3, LostUpdates: 2, CriticalSections: 1000})
	if err != nil {
		t.Fatal(err)
	}
	cell.Variant, cell.Client, cell.Clients, cell.Topology = "lua-release", "rueidis", 16, "local"
	return &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: "test-run",
		Topology: record.TopologyInfo{Name: "local:single", Representative: true}, Cells: []record.Cell{cell}}
}

// Fenced is Sample's cell run twice as the fenced variant (which hands
// out fencing tokens), with stale writes 3 and 4 and rejected writes 5
// and 6.
func Fenced(t testing.TB) *record.Record {
	t.Helper()
	rec := Sample(t)
	base := rec.Cells[0]
	base.Variant, base.Fencing = "fenced", true
	rec.Cells = nil
	for i := range 2 {
		c := base
		c.Repetition = i + 1
		c.Violations.StaleWrites, c.Violations.RejectedWrites = int64(3+i), int64(5+i)
		rec.Cells = append(rec.Cells, c)
	}
	rec.Config.Repeat = 2
	return rec
}
