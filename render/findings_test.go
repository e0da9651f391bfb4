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

// With drivers, the report opens with the scenarios across the designs and
// the libraries: each driver's cell shows the figures its prediction names
// and whether it held, a design the scenario does not run is a dash, and a
// scenario no library applies to is named under the table.
func TestWriteFindingsAcrossLibraries(t *testing.T) {
	designs := &record.Record{Cells: []record.Cell{{Variant: "lua-release", Limit: 1}, {Variant: "watchdog", Limit: 1}}}
	designs.Cells[0].Violations.Overlaps = 7
	drivers := &record.Record{Cells: []record.Cell{{Variant: "drv:a", Limit: 1}, {Variant: "drv:b", Limit: 1}}}
	drivers.Cells[0].Violations.Overlaps = 3
	drivers.Cells[0].Acquisitions = 9
	drivers.Cells[0].Margins = &record.Margins{TTLMS: 200, Holds: 9, LateHolds: 8, ExpiredAtAcquire: 1}
	expect := map[string][]string{"lua-release": {"overlaps>0"}, "watchdog": {"overlaps=0"}, "drv:a": {"overlaps>0"}, "drv:b": {"overlaps>0"}}
	var buf bytes.Buffer
	err := render.WriteFindings(&buf, []render.Finding{
		{Name: "long-hold", Command: "c", Expect: expect, Record: designs, Drivers: drivers, DriversCommand: "c --variants drv:a,drv:b",
			Analogs: map[string]string{"drv:a": "lua-release", "drv:b": "lua-release"}},
		{Name: "client-skew", Command: "c", Record: &record.Record{}, DriversNotRun: []render.NotRun{{Variant: "drv:a", Why: "client clocks"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| scenario | lua-release | watchdog | fenced | redlock | drv:a | drv:b |",
		"| long-hold | overlaps 7 ✓ | overlaps 0 ✓ | — | — | overlaps 3 ✓ | overlaps 0 **✗** |",
		"No library applies to client-skew",
		"- drv:a not run: client clocks",
		"drv:a as lua-release",
		"| long-hold | drv:a | 200.00ms | - | - | 1 of 9 | 8 of 9 (p50 -, max -) | - |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
