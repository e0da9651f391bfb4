package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// Findings run on two servers name each cell's server, count porcupine's
// agreement per server, and list the checks whose outcome differs.
func TestWriteFindingsAcrossServers(t *testing.T) {
	rec := &record.Record{Cells: []record.Cell{
		{Variant: "lua-release", Limit: 1, Product: "redis 7.0.15"}, {Variant: "lua-release", Limit: 1, Product: "valkey 8.0.1"},
	}}
	rec.Cells[0].Violations.Overlaps = 3
	var buf bytes.Buffer
	err := render.WriteFindings(&buf, []render.Finding{{Name: "split-brain", Command: "lockbench run --scenario split-brain --servers redis,valkey",
		Expect: map[string][]string{"lua-release": {"overlaps>0"}}, Record: rec}})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| lua-release on redis 7.0.15 | 0 | 3 |",
		"| lua-release on valkey 8.0.1 | 0 | 0 |",
		"## Across servers",
		"Every scenario ran on redis 7.0.15 and valkey 8.0.1",
		"1 checks came out differently",
		"- split-brain, lua-release, overlaps>0: holds on redis 7.0.15 (3 overlaps",
		"fails on valkey 8.0.1 (0 overlaps",
		"| split-brain on redis 7.0.15 | 1 |",
		"| split-brain on valkey 8.0.1 | 1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	one := &record.Record{Cells: []record.Cell{{Variant: "lua-release", Limit: 1, Product: "valkey 8.0.1"}}}
	buf.Reset()
	if err := render.WriteFindings(&buf, []render.Finding{{Name: "baseline", Command: "c", Record: one}}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "Across servers") || strings.Contains(out, " on valkey") {
		t.Errorf("findings on one server name it:\n%s", out)
	}
}
