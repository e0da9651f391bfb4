package record_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

// repeated returns a record of one cell run three times with the given
// throughputs and overlaps, plus a second cell run once.
func repeated(t *testing.T, throughputs []float64, overlaps []int64) *record.Record {
	t.Helper()
	rec := recordtest.Sample(t)
	base := rec.Cells[0]
	rec.Cells = nil
	for i, x := range throughputs {
		c := base
		c.Repetition, c.ThroughputPerS, c.Violations.Overlaps = i+1, x, overlaps[i]
		c.Violations.MaxOccupancy = 1 + overlaps[i]
		c.AcquireLatencyUS.P99 = 1000 * float64(i+1)
		rec.Cells = append(rec.Cells, c)
	}
	other := base
	other.Variant, other.Repetition, other.Violations.Overlaps = "set-nx-ex", 1, 0
	rec.Cells = append(rec.Cells, other)
	rec.Config.Repeat = len(throughputs)
	return rec
}

func TestGroupSummary(t *testing.T) {
	rec := repeated(t, []float64{100, 300, 200}, []int64{0, 2, 0})
	groups := record.Groups(rec)
	if len(groups) != 2 || len(groups[0].Cells) != 3 || len(groups[1].Cells) != 1 {
		t.Fatalf("groups %d of %d and %d cells, want 2 of 3 and 1", len(groups), len(groups[0].Cells), len(groups[1].Cells))
	}
	s := groups[0].Summary()
	if s.ThroughputPerS != 200 || s.AcquireLatencyUS.P99 != 2000 {
		t.Errorf("summary throughput %v, p99 %v; want the medians 200 and 2000", s.ThroughputPerS, s.AcquireLatencyUS.P99)
	}
	if s.Violations.Overlaps != 2 || s.Violations.MaxOccupancy != 3 {
		t.Errorf("summary overlaps %d, max occupancy %d; want the total 2 and the worst 3", s.Violations.Overlaps, s.Violations.MaxOccupancy)
	}
	if one := groups[1].Summary(); one.ThroughputPerS != rec.Cells[3].ThroughputPerS || one.Variant != "set-nx-ex" {
		t.Errorf("a group of one does not summarize to its cell")
	}
	if got := record.Spread(groups[0].Values(mustFigure(t, "throughput"))); got != 1 {
		t.Errorf("spread %v, want (300-100)/200 = 1", got)
	}
	if m := record.Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of 1..4 = %v, want 2.5", m)
	}
}

func TestRepeatedTableShowsMediansAndSpread(t *testing.T) {
	rec := repeated(t, []float64{100, 300, 200}, []int64{0, 2, 0})
	var buf bytes.Buffer
	if err := render.Render(&buf, rec, "table"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"200 ±100%", "2.00ms ±100%", "3 repetitions per cell"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if rows := strings.Count(out, "lua-release"); rows != 1 {
		t.Errorf("lua-release in %d rows, want one row for its repetitions:\n%s", rows, out)
	}
	thresholds := []record.Threshold{mustThreshold(t, "overlaps==0"), mustThreshold(t, "throughput>=150")}
	failed := record.Evaluate(rec, thresholds)
	if len(failed) != 1 || failed[0].Threshold.Text != "overlaps==0" || failed[0].Cell.Variant != "lua-release" {
		t.Errorf("failed checks %v, want overlaps==0 on lua-release only (one repetition had overlaps; the median throughput passes)", failed)
	}
}

func mustFigure(t *testing.T, name string) record.Figure {
	t.Helper()
	f, err := record.LookupFigure(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustThreshold(t *testing.T, text string) record.Threshold {
	t.Helper()
	th, err := record.ParseThreshold(text)
	if err != nil {
		t.Fatal(err)
	}
	return th
}
