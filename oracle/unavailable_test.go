package oracle

import (
	"testing"
	"time"
)

// timed is one event of an unavailability scenario, at ms milliseconds
// after the start: a client starts or stops waiting for resource 0, or a
// named holder enters, exits or abandons it.
type timed struct {
	ms     int
	action string // "wait", "gaveup", "enter", "exit", "abandon"
	holder string
}

// The clock of unavailability runs while the resource has room for a
// holder and a client waits, whichever comes later, and stops when a
// holder takes the last room or no client waits any more.
func TestOracleUnavailability(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		events []timed
		want   time.Duration
	}{
		{"a client that never waits", 1, []timed{
			{0, "enter", "a"}, {1, "exit", "a"}, {400, "enter", "a"}, {401, "exit", "a"}}, 0},
		{"the wait starts after the release: from the wait", 1, []timed{
			{0, "enter", "a"}, {1, "exit", "a"}, {400, "wait", ""}, {405, "gaveup", ""}, {405, "enter", "b"}, {406, "exit", "b"}},
			5 * time.Millisecond},
		{"the wait starts while held: from the release", 1, []timed{
			{0, "enter", "a"}, {10, "wait", ""}, {50, "exit", "a"}, {80, "gaveup", ""}, {80, "enter", "b"}, {81, "exit", "b"}},
			30 * time.Millisecond},
		{"the waiter gives up: the clock stops", 1, []timed{
			{0, "enter", "a"}, {10, "wait", ""}, {20, "abandon", "a"}, {70, "gaveup", ""}, {500, "enter", "b"}, {501, "exit", "b"}},
			50 * time.Millisecond},
		{"another client enters: the clock stops though one still waits", 1, []timed{
			{0, "enter", "a"}, {10, "wait", ""}, {20, "exit", "a"}, {45, "enter", "b"}, {300, "exit", "b"}, {310, "gaveup", ""},
			{310, "enter", "c"}, {311, "exit", "c"}},
			25 * time.Millisecond},
		{"two waiters: until the last one stops", 1, []timed{
			{0, "enter", "a"}, {5, "wait", ""}, {6, "wait", ""}, {10, "abandon", "a"}, {30, "gaveup", ""}, {90, "gaveup", ""}},
			80 * time.Millisecond},
		{"a semaphore with a permit left while a client waits", 2, []timed{
			{0, "enter", "a"}, {1, "enter", "b"}, {5, "wait", ""}, {20, "exit", "a"}, {60, "gaveup", ""}, {60, "enter", "c"},
			{61, "exit", "b"}, {62, "exit", "c"}},
			40 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := New(1, tt.limit)
			start := time.Now()
			entries := map[string]Entry{}
			for _, e := range tt.events {
				at := start.Add(time.Duration(e.ms) * time.Millisecond)
				switch e.action {
				case "wait":
					o.WaitingAt(0, at)
				case "gaveup":
					o.GaveUpAt(0, at)
				case "enter":
					entries[e.holder] = o.EnterFencedAt(0, 0, at)
				case "exit":
					o.ExitAt(entries[e.holder], at)
				case "abandon":
					o.AbandonAt(entries[e.holder], at)
				}
			}
			if got := o.Report().LongestUnavailable; got != tt.want {
				t.Errorf("LongestUnavailable = %v, want %v", got, tt.want)
			}
		})
	}
}

// A client still waiting for a free resource at the report counts to the
// report: the cell ended while it waited.
func TestOracleUnavailableUntilReport(t *testing.T) {
	o := New(1, 1)
	e := o.Enter(0)
	o.Waiting(0)
	o.Abandon(e) // a crashed holder: the lock stays taken in Redis
	time.Sleep(20 * time.Millisecond)
	if got := o.Report().LongestUnavailable; got < 20*time.Millisecond {
		t.Errorf("LongestUnavailable = %v while a client still waits, want at least the 20ms slept", got)
	}
}
