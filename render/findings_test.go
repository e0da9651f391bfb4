package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

func TestWriteFindingsMarksDisagreement(t *testing.T) {
	rec := &record.Record{Cells: []record.Cell{{Variant: "a", Limit: 1}, {Variant: "b", Limit: 1}}}
	rec.Cells[0].Violations.Overlaps = 5
	var buf bytes.Buffer
	err := render.WriteFindings(&buf, []render.Finding{{Name: "x", Tests: "t", Source: "s", Predicts: "p", Command: "c",
		Expect: map[string][]string{"a": {"overlaps>0"}, "b": {"overlaps>0"}}, Record: rec}})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "1 checks agree with the sources, 1 disagree") || !strings.Contains(out, "✗ overlaps>0 (disagrees)") {
		t.Errorf("report:\n%s", out)
	}
}
