package record_test

import (
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
)

func encoded(t *testing.T, us ...int64) string {
	t.Helper()
	h := metrics.NewHistogram()
	for _, v := range us {
		metrics.RecordMicros(h, v)
	}
	s, err := metrics.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func quantilesOf(t *testing.T, us ...int64) measure.Latency {
	t.Helper()
	h := hdrhistogram.New(1, 100_000_000, 3)
	for _, v := range us {
		_ = h.RecordValue(v)
	}
	return metrics.Quantiles(h)
}

// Merging cells sums the margins' counts and takes their quantiles from
// the merged histograms; the history's counts are summed and the worse
// verdict kept with its window; a cell without either makes the merge's
// none.
func TestMergeMarginsAndHistory(t *testing.T) {
	a, b := recordtest.Sample(t), recordtest.Sample(t)
	ca, cb := &a.Cells[0], &b.Cells[0]
	ca.Margins = &record.Margins{TTLMS: 200, Holds: 10, LateHolds: 2, Notices: 1, ValidityLeftUS: quantilesOf(t, 199_000), LateUS: quantilesOf(t, 1000)}
	cb.Margins = &record.Margins{TTLMS: 200, Holds: 5, LateHolds: 5, ExpiredAtAcquire: 1, LateUS: quantilesOf(t, 300_000)}
	ca.Histograms.ValidityLeft, ca.Histograms.Late = encoded(t, 199_000), encoded(t, 1000, 1000)
	cb.Histograms.ValidityLeft, cb.Histograms.Late = encoded(t, 1), encoded(t, 300_000)
	ca.History = &record.HistoryInfo{Events: 100, Path: "a.jsonl", Check: &record.HistoryCheck{Verdict: record.VerdictLinearizable}}
	cb.History = &record.HistoryInfo{Events: 50, Dropped: 3, Cut: true, Path: "b.jsonl",
		Check: &record.HistoryCheck{Verdict: record.VerdictNotLinearizable, Window: &record.HistoryWindow{Key: "lock:0"}}}
	merged, err := record.Merge([]*record.Record{a, b})
	if err != nil {
		t.Fatal(err)
	}
	c := merged.Cells[0]
	m := c.Margins
	if m == nil || m.Holds != 15 || m.LateHolds != 7 || m.Notices != 1 || m.ExpiredAtAcquire != 1 || m.TTLMS != 200 {
		t.Fatalf("merged margins %+v", m)
	}
	if m.LateUS.Max < 299_000 || m.LateUS.P50 > 1100 || m.ValidityLeftUS.P50 > 2 || m.ValidityLeftUS.Max < 198_000 {
		t.Errorf("merged quantiles late %+v, validity left %+v: not from the merged histograms", m.LateUS, m.ValidityLeftUS)
	}
	h := c.History
	if h == nil || h.Events != 150 || h.Dropped != 3 || !h.Cut || h.Path != "a.jsonl" || h.Check == nil ||
		h.Check.Verdict != record.VerdictNotLinearizable || h.Check.Window == nil {
		t.Errorf("merged history %+v (check %+v)", h, h.Check)
	}
	if ca.Margins.Holds != 10 || ca.History.Events != 100 || ca.History.Check.Verdict != record.VerdictLinearizable {
		t.Error("merge changed its input")
	}
	b.Cells[0].Margins, b.Cells[0].History = nil, nil
	if merged, err = record.Merge([]*record.Record{a, b}); err != nil || merged.Cells[0].Margins != nil || merged.Cells[0].History != nil {
		t.Errorf("merge with a cell without margins or history: %v, margins %+v, history %+v", err, merged.Cells[0].Margins, merged.Cells[0].History)
	}
}
