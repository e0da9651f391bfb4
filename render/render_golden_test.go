package render_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCell builds a cell from real recorders with fixed times and
// latencies: n acquisitions of 10 µs·(i%k+1), an open loop when offered.
func goldenCell(t *testing.T, variant string, clients int, n, k int, offered int64, report oracle.Report) record.Cell {
	t.Helper()
	start := time.Unix(1_700_000_000, 0)
	rec := metrics.NewRecorder(start)
	perClient := make([]int64, clients)
	for i := range n {
		at := start.Add(time.Duration(i) * time.Millisecond)
		d := time.Duration(i%k+1) * 10 * time.Microsecond
		raw := d
		if offered > 0 {
			raw = d / 2
		}
		rec.Acquired(at, d, raw)
		rec.Released(time.Duration(i%7+1) * 5 * time.Microsecond)
		rec.Held(time.Millisecond)
		rec.Add(at, metrics.Attempt)
		if i%3 == 0 {
			rec.Add(at, metrics.Attempt)
			rec.Add(at, metrics.Busy)
		}
		perClient[i%clients]++
	}
	rec.Add(start, metrics.Timeout)
	out := metrics.CellSummary{
		Measured: metrics.Merge([]*metrics.Recorder{rec}, perClient),
		Warmup:   metrics.Merge(nil, nil),
		Handoff:  oracle.New(1, 1).Handoff(),
		Elapsed:  2 * time.Second,
		Offered:  offered,
	}
	out.Measured.Commands = int64(3 * n)
	c, err := record.NewCell(out, report)
	if err != nil {
		t.Fatal(err)
	}
	c.Variant, c.Client, c.Clients, c.Topology, c.Keys, c.Limit, c.Repetition = variant, "rueidis", clients, "local:single", 1, 1, 1
	return c
}

// goldenRecord is a deterministic record: two variants, the second
// repeated, one cell an open loop, one with violations, one failed.
func goldenRecord(t *testing.T) *record.Record {
	t.Helper()
	lua := goldenCell(t, "lua-release", 8, 2000, 300, 0, oracle.Report{CriticalSections: 2000})
	none1 := goldenCell(t, "none", 8, 3000, 50, 0, oracle.Report{Overlaps: 12, MaxOccupancy: 3, LostUpdates: 4, CriticalSections: 3000})
	none2 := goldenCell(t, "none", 8, 2800, 60, 0, oracle.Report{Overlaps: 9, MaxOccupancy: 2, LostUpdates: 1, CriticalSections: 2800})
	none2.Repetition = 2
	lua2 := lua
	lua2.Repetition = 2
	open := goldenCell(t, "set-nx-ex", 16, 1500, 900, 3200, oracle.Report{CriticalSections: 1500})
	open2 := open
	open2.Repetition = 2
	failed := record.Cell{Variant: "redlock", Client: "rueidis", Topology: "local:single", Clients: 8, Keys: 1, Limit: 1, Repetition: 1, Error: "no independent nodes"}
	return &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: "20261130T120000-golden",
		Config:   record.RunConfig{Client: "rueidis", Workload: record.Workload{Keys: 1, Hold: "exp:1ms", Think: "0s"}, TTL: 10 * time.Second, Repeat: 2},
		Topology: record.TopologyInfo{Name: "local:single", ServerVersion: "7.0.15", Representative: true},
		Cells:    []record.Cell{lua, none1, open, failed, lua2, none2, open2}}
}

// goldenRenderings are the renderings TestRenderGolden pins, by the name
// of their golden file: the compact table (the default), the wide one
// (every column, as the table was before the compact one), markdown, CSV.
var goldenRenderings = []struct {
	name, format string
	opts         render.TableOptions
}{
	{"table", "table", render.TableOptions{}},
	{"wide", "table", render.TableOptions{Wide: true}},
	{"markdown", "markdown", render.TableOptions{}},
	{"csv", "csv", render.TableOptions{}},
}

// TestRenderGolden pins the table, markdown and CSV renderings of a
// record; go test ./render -update rewrites testdata/render.*.golden.
func TestRenderGolden(t *testing.T) {
	rec := goldenRecord(t)
	for _, r := range goldenRenderings {
		format := r.name
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := render.RenderWith(&buf, rec, r.format, r.opts); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "render."+format+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./render -run TestRenderGolden -update to create it)", err)
			}
			if buf.String() != string(want) {
				t.Errorf("%s rendering changed; run go test ./render -run TestRenderGolden -update if intended.\ngot:\n%s\nwant:\n%s", format, buf.String(), want)
			}
		})
	}
}
