package render_test

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// A run's notes on its histories: where each went (and what was cut), why
// one was not kept, and each check's verdict beside the oracle's count.
func TestHistoryNotes(t *testing.T) {
	rec := &record.Record{Cells: []record.Cell{
		{Variant: "none", Clients: 8, Violations: record.Violations{Overlaps: 3}, History: &record.HistoryInfo{
			Events: 100, Dropped: 7, Cut: true, Path: "h/none-c8.jsonl",
			Check: &record.HistoryCheck{Verdict: record.VerdictNotLinearizable,
				Window: &record.HistoryWindow{Key: "lock:0", Leases: []int{4, 9}, Processes: []int{1, 2}, FromNS: 1000, ToNS: 5000}},
		}},
		{Variant: "lua-release", Clients: 8, History: &record.HistoryInfo{Error: "disk full",
			Check: &record.HistoryCheck{Verdict: record.VerdictLinearizable}}},
		{Variant: "watchdog", Clients: 8},
	}}
	notes, failed, checked := render.HistoryNotes(rec)
	want := []string{
		"history of none, 8 clients: h/none-c8.jsonl, 100 events (cut: 7 events dropped)",
		"history of none, 8 clients: not linearizable: lock:0, leases [4 9] of clients [1 2], 1µs to 5µs (oracle: 3 overlaps)",
		"history of lua-release, 8 clients: disk full",
		"history of lua-release, 8 clients: linearizable (oracle: 0 overlaps)",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
	if failed != 1 || checked != 2 {
		t.Errorf("failed %d of %d checked, want 1 of 2", failed, checked)
	}
	if got := render.HistoryVerdict(&record.HistoryCheck{Error: "timed out"}); got != "not checked: timed out" {
		t.Errorf("HistoryVerdict of an error: %q", got)
	}
}
