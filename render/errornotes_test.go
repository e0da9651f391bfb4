package render_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

// failedCell is a cell that acquired nothing and met only errors.
func failedCell(variant string, byKind map[string]measure.ErrorCount) record.Cell {
	c := record.Cell{Variant: variant, Clients: 4, ErrorsByKind: byKind, Fairness: measure.FairnessOf([]int64{0, 0, 0, 0})}
	for _, n := range byKind {
		c.Errors += n.Count
	}
	return c
}

// The notes name the most frequent kinds of error of the whole record,
// with counts and the first sample, and count the others.
func TestErrorNotes(t *testing.T) {
	rec := recordtest.Sample(t)
	if got := render.ErrorNotes(rec); got != nil {
		t.Errorf("a record without errors has error notes %q", got)
	}
	rec.Cells = append(rec.Cells,
		failedCell("lua-release", map[string]measure.ErrorCount{"OOM": {Count: 8000, Sample: "OOM command not allowed when used memory > 'maxmemory'."},
			"timeout": {Count: 3, Sample: "i/o timeout"}, "EOF": {Count: 1, Sample: "EOF"}}),
		failedCell("set-nx-ex", map[string]measure.ErrorCount{"OOM": {Count: 512, Sample: "OOM later"}, "READONLY": {Count: 2, Sample: "READONLY replica"},
			"connection reset": {Count: 1, Sample: "read: connection reset by peer"}}))
	want := "errors: 8512 OOM (OOM command not allowed when used memory > 'maxmemory'.), 3 timeout (i/o timeout), 2 READONLY (READONLY replica), 2 of 2 other kinds"
	if got := render.ErrorNotes(rec); len(got) != 1 || got[0] != want {
		t.Errorf("ErrorNotes = %q\nwant %q", got, want)
	}
	if notes := strings.Join(render.Notes(rec), "\n"); !strings.Contains(notes, want) {
		t.Errorf("the table's notes leave the errors out:\n%s", notes)
	}
}

// A run fails as a whole when no cell acquired and each met errors or
// could not run; one acquisition anywhere, a cell of timeouts alone, or
// an interrupted run is no such failure.
func TestAllFailed(t *testing.T) {
	oom := map[string]measure.ErrorCount{"OOM": {Count: 8512, Sample: "OOM command not allowed when used memory > 'maxmemory'."}}
	refused := map[string]measure.ErrorCount{"connection refused": {Count: 10, Sample: "dial tcp 127.0.0.1:1: connect: connection refused"}}
	tests := []struct {
		name   string
		cells  []record.Cell
		failed bool
		why    string
	}{
		{"every cell out of memory", []record.Cell{failedCell("lua-release", oom), failedCell("simple", refused)}, true,
			"every cell failed: 8522 errors, most OOM (OOM command not allowed when used memory > 'maxmemory'.)"},
		{"a cell could not run", []record.Cell{failedCell("lua-release", oom), {Variant: "redlock", Error: "needs 3 masters"}}, true,
			"every cell failed: 8512 errors, most OOM (OOM command not allowed when used memory > 'maxmemory'.); 1 cells could not run (first: needs 3 masters)"},
		{"one acquired in the warm-up", []record.Cell{failedCell("lua-release", oom), func() record.Cell {
			c := failedCell("simple", oom)
			c.Warmup.Acquisitions = 1
			return c
		}()}, false, ""},
		{"timeouts only", []record.Cell{failedCell("lua-release", oom), {Variant: "simple", Timeouts: 5}}, false, ""},
		{"no cells", nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			failed, why := render.AllFailed(&record.Record{Cells: tt.cells})
			if failed != tt.failed || why != tt.why {
				t.Errorf("AllFailed = %v, %q\nwant %v, %q", failed, why, tt.failed, tt.why)
			}
		})
	}
	rec := &record.Record{Cells: []record.Cell{failedCell("lua-release", oom)}, Interrupted: true}
	if failed, _ := render.AllFailed(rec); failed {
		t.Error("an interrupted run failed as a whole: it was stopped, not failed")
	}
	if failed, _ := render.AllFailed(recordtest.Sample(t)); failed {
		t.Error("a run that acquired failed as a whole")
	}
}

// Merging cells adds their errors kind by kind and keeps the first
// cell's sample.
func TestMergeSumsErrorsByKind(t *testing.T) {
	a, b := recordtest.Sample(t), recordtest.Sample(t)
	a.Cells[0].ErrorsByKind = map[string]measure.ErrorCount{"OOM": {Count: 2, Sample: "OOM first"}}
	b.Cells[0].ErrorsByKind = map[string]measure.ErrorCount{"OOM": {Count: 3, Sample: "OOM second"}, "EOF": {Count: 1, Sample: "EOF"}}
	merged, err := record.Merge([]*record.Record{a, b})
	if err != nil {
		t.Fatal(err)
	}
	got := merged.Cells[0].ErrorsByKind
	if len(got) != 2 || got["OOM"] != (measure.ErrorCount{Count: 5, Sample: "OOM first"}) || got["EOF"] != (measure.ErrorCount{Count: 1, Sample: "EOF"}) {
		t.Errorf("merged errors by kind %v; want OOM 5 (first sample), EOF 1", got)
	}
	if a.Cells[0].ErrorsByKind["OOM"].Count != 2 {
		t.Errorf("merge changed its input: %v", a.Cells[0].ErrorsByKind)
	}
}

// Jain's index of a cell without acquisitions is undefined: absent from
// the record and shown as "-", not 1.000.
func TestJainUndefinedWithoutAcquisitions(t *testing.T) {
	rec := recordtest.Sample(t)
	rec.Cells = append(rec.Cells, failedCell("set-nx-ex", map[string]measure.ErrorCount{"OOM": {Count: 1}}))
	f := rec.Cells[1].Fairness
	if f.Defined() || f.JainText() != "-" || rec.Cells[0].Fairness.JainText() != "1.000" {
		t.Errorf("Jain %v (%q) without acquisitions, %q with; want undefined (-) and 1.000", f.Jain, f.JainText(), rec.Cells[0].Fairness.JainText())
	}
	data, err := json.Marshal(f)
	if err != nil || bytes.Contains(data, []byte(`"jain"`)) {
		t.Errorf("fairness JSON %s (%v); want no jain", data, err)
	}
	header, body := render.Table(rec)
	i := slices.Index(header, "jain")
	if i < 0 || body[0][i] != "1.000" || body[1][i] != "-" {
		t.Errorf("table %q %q; want a jain column of 1.000 and -", header, body)
	}
}
