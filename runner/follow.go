package runner

import (
	"time"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/workloads"
)

// The fault events that say how soon a cell's clients followed each
// promotion (workloads.Follow): the first time the clients' commands
// reached the new master, and the first acquisition after that, each
// timed from the promotion seen (DurationS).
const (
	ActionServed   = "served"
	ActionAcquired = "acquired"
)

// followEvents are the served and acquired events of every promotion
// follow saw, timed from measureAt.
func followEvents(follow *workloads.Follow, measureAt time.Time) []measure.FaultEvent {
	var events []measure.FaultEvent
	for i := 0; ; i++ {
		t, ok := follow.Times(i)
		if !ok {
			return events
		}
		seen := t.Seen.Sub(measureAt).Seconds()
		for _, e := range []struct {
			action string
			after  time.Duration
		}{{ActionServed, t.Served}, {ActionAcquired, t.Acquired}} {
			ev := measure.FaultEvent{Action: e.action, Node: t.Node, AtS: seen}
			if e.after == workloads.Never {
				ev.Error = "not before the cell ended"
			} else {
				ev.AtS, ev.DurationS = seen+e.after.Seconds(), e.after.Seconds()
			}
			events = append(events, ev)
		}
	}
}
