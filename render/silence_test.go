package render

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
)

// seconds is a per-second series of these acquisitions, 100 refused
// tries each.
func seconds(acquisitions ...int64) []measure.Second {
	series := make([]measure.Second, len(acquisitions))
	for i, a := range acquisitions {
		series[i] = measure.Second{T: i, Acquisitions: a, FailedAttempts: 100}
	}
	return series
}

// A cell that spent a large share of its seconds without an acquisition
// (the graceful Sentinel failover of issue 40: 706, 383, then none to the
// end) is said in the notes, with its longest run; a cell with a short
// stall, or a failed cell, is not.
func TestSilenceNotes(t *testing.T) {
	rec := &record.Record{Cells: []record.Cell{
		{Variant: "lua-release", Clients: 4, Series: seconds(706, 383, 0, 0, 0, 0, 0, 0, 0)},
		{Variant: "set-nx-ex", Clients: 8, Series: seconds(5, 0, 0, 7, 0, 0, 0, 9, 9, 9)},
		{Variant: "watchdog", Clients: 8, Series: seconds(5, 0, 5, 5, 5, 5, 5, 5, 5, 5)},
		{Variant: "fenced", Clients: 8, Series: seconds(0, 0, 0), Error: "every cell failed"},
	}}
	want := []string{
		"lua-release, 4 clients: no acquisition in 7 of its 9 measured seconds; the longest run 7 s, from 2 s to the end, while 700 tries were refused",
		"set-nx-ex, 8 clients: no acquisition in 5 of its 10 measured seconds; the longest run 3 s, from 4 s to 7 s, while 500 tries were refused",
	}
	if got := silenceNotes(rec); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if all := strings.Join(Notes(rec), "\n"); !strings.Contains(all, want[0]) {
		t.Errorf("Notes lack the silence note:\n%s", all)
	}
}
