package results_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/results"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/workloads"
)

// sampleRecord builds a record from real recorders.
func sampleRecord(t *testing.T) *results.Record {
	t.Helper()
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
	out := workloads.Outcome{
		Measured: metrics.Merge([]*metrics.Recorder{rec}, []int64{1000}),
		Warmup:   metrics.Merge(nil, nil),
		Handoff:  oracle.New(1, 1).Handoff(),
		Elapsed:  2 * time.Second,
	}
	out.Measured.Commands = 3000
	cell, err := runner.NewCell(out, oracle.Report{Overlaps: 3, LostUpdates: 2, CriticalSections: 1000})
	if err != nil {
		t.Fatal(err)
	}
	cell.Variant, cell.Client, cell.Clients, cell.Topology = "lua-release", "rueidis", 16, "local"
	return &results.Record{Schema: results.SchemaVersion, Tool: "lockbench", RunID: "test-run",
		Topology: results.TopologyInfo{Name: "local:single", Representative: true}, Cells: []results.Cell{cell}}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "run.json")
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil { // Save creates no directory but its own default
		t.Fatal(err)
	}
	want := sampleRecord(t)
	if err := results.Save(want, path); err != nil {
		t.Fatal(err)
	}
	got, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != want.RunID || got.Cells[0].Histograms != want.Cells[0].Histograms || got.Cells[0].Violations != want.Cells[0].Violations {
		t.Errorf("round trip changed the record")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestLoadRejectsBadRecords(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(func() string {
		p := filepath.Join(dir, "good.json")
		if err := results.Save(sampleRecord(t), p); err != nil {
			t.Fatal(err)
		}
		return p
	}())
	schema := fmt.Sprintf(`"schema": %d`, results.SchemaVersion)
	for name, content := range map[string]string{
		"empty":     "",
		"not json":  "hello",
		"truncated": string(good[:len(good)/2]),
		"schema":    strings.Replace(string(good), schema, `"schema": 99`, 1),
		"older":     strings.Replace(string(good), schema, `"schema": 1`, 1),
		"other":     `{` + schema + `, "tool": "vegeta"}`,
		"unknown":   strings.Replace(string(good), schema, schema+`, "surprise": true`, 1),
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := results.Load(p); !errors.Is(err, results.ErrBadRecord) {
			t.Errorf("%s: error %v, want ErrBadRecord", name, err)
		}
	}
}

func TestRenderFormats(t *testing.T) {
	rec := sampleRecord(t)
	rec.Interrupted = true
	rec.Topology.Representative = false
	for _, format := range results.Formats {
		var buf bytes.Buffer
		if err := results.Render(&buf, rec, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := buf.String()
		if !strings.Contains(out, "lua-release") {
			t.Errorf("%s: no variant in output:\n%s", format, out)
		}
		switch format {
		case "table", "markdown":
			for _, want := range []string{"500", "overlaps", "INTERRUPTED", "not representative"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s: output lacks %q:\n%s", format, want, out)
				}
			}
		case "csv":
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(rows) != 2 || len(rows[0]) != len(rows[1]) {
				t.Errorf("csv: %v, rows %d", err, len(rows))
			}
		}
	}
	if err := results.Render(&bytes.Buffer{}, rec, "xml"); !errors.Is(err, results.ErrUnknownFormat) {
		t.Errorf("xml: %v", err)
	}
}
