package record_test

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

// Repetitions total their fence counts, as merged shards sum them.
func TestFenceCountsAddUp(t *testing.T) {
	rec := recordtest.Fenced(t)
	s := record.Groups(rec)[0].Summary()
	if s.Violations.StaleWrites != 7 || s.Violations.RejectedWrites != 11 {
		t.Errorf("summary %d stale, %d rejected; want the totals 7 and 11", s.Violations.StaleWrites, s.Violations.RejectedWrites)
	}
	merged, err := record.Merge([]*record.Record{rec, recordtest.Fenced(t)})
	if err != nil {
		t.Fatal(err)
	}
	if v := merged.Cells[0].Violations; v.StaleWrites != 6 || v.RejectedWrites != 10 {
		t.Errorf("merged shards %d stale, %d rejected; want 3+3 and 5+5", v.StaleWrites, v.RejectedWrites)
	}
}

func TestFenceFigures(t *testing.T) {
	c := recordtest.Fenced(t).Cells[0]
	for _, tc := range []struct {
		name string
		want float64
	}{{"stale_writes", 3}, {"rejected_writes", 5}} {
		f, err := record.LookupFigure(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if f.HigherIsBetter || f.Latency || f.Value(&c) != tc.want {
			t.Errorf("%s: higher is better %v, latency %v, value %v; want lower is better, a count, %v", tc.name, f.HigherIsBetter, f.Latency, f.Value(&c), tc.want)
		}
	}
	if ok, err := record.Check("stale_writes==0", &c); err != nil || ok {
		t.Errorf("check stale_writes==0 on 3 stale writes: %v, %v; want false", ok, err)
	}
}

// The fence columns show with a fenced variant or a fence count, and not
// otherwise; the notes say when stale writes were rejected; the CSV has
// both counts.
func TestFenceColumns(t *testing.T) {
	render := func(rec *record.Record, format string) string {
		var buf bytes.Buffer
		if err := render.Render(&buf, rec, format); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	plain := recordtest.Sample(t) // lua-release, no fence counts
	if out := render(plain, "table"); strings.Contains(out, "stale wr") || strings.Contains(out, "fence reject") {
		t.Errorf("fence columns or note without a fenced variant:\n%s", out)
	}
	counted := recordtest.Sample(t)
	counted.Cells[0].Violations.StaleWrites = 2 // e.g. a variant of a newer build
	if out := render(counted, "table"); !strings.Contains(out, "stale wr") {
		t.Errorf("no fence columns with stale writes:\n%s", out)
	}

	rec := recordtest.Fenced(t)
	rec.Config.Fence = record.FenceReject
	out := render(rec, "table")
	for _, want := range []string{"stale wr", "rejected wr", "fence reject"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(render(rec, "csv"))).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("csv: %v, %d rows", err, len(rows))
	}
	stale, rejected := slices.Index(rows[0], "stale_writes"), slices.Index(rows[0], "rejected_writes")
	if stale < 0 || rejected < 0 || rows[2][stale] != "4" || rows[2][rejected] != "6" {
		t.Errorf("csv header %v, second repetition %v; want stale_writes 4 and rejected_writes 6", rows[0], rows[2])
	}
}
