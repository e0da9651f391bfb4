package render

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
)

// A cell with a failover says in the notes, for its client library, how
// soon its clients followed the promotion; one whose clients never did
// says so, one whose clients followed before the promotion was seen says
// how long before; a cell without one says nothing.
func TestFollowNotes(t *testing.T) {
	rec := &record.Record{Config: record.RunConfig{Client: "rueidis"}, Cells: []record.Cell{{
		Variant: "lua-release", Client: "go-redis", Clients: 8,
		Faults: []measure.FaultEvent{
			{AtS: 1, Action: "pause", Node: "master-1"},
			{AtS: 3.2, Action: "promoted", Node: "replica-1", DurationS: 2.2},
			{AtS: 3.75, Action: "served", Node: "replica-1", DurationS: 0.55},
			{AtS: 3.8, Action: "acquired", Node: "replica-1", DurationS: 0.6},
		},
	}, {
		Variant: "watchdog", Clients: 8,
		Faults: []measure.FaultEvent{
			{AtS: 3.2, Action: "served", Node: "replica-1", Error: "not before the cell ended"},
			{AtS: 3.2, Action: "acquired", Node: "replica-1", Error: "not before the cell ended"},
		},
	}, {
		Variant: "lua-release", Clients: 4,
		Faults: []measure.FaultEvent{
			{AtS: 2.94, Action: "served", Node: "replica-1", DurationS: -0.06},
			{AtS: 2.96, Action: "acquired", Node: "replica-1", DurationS: -0.04},
		},
	}, {Variant: "set-nx-ex", Clients: 8}}}
	notes := followNotes(rec)
	want := []string{
		"failover follow, lua-release 8 clients (go-redis): replica-1 promoted at 3.20s; first command served there 0.55s later, first acquisition 0.60s later",
		"failover follow, watchdog 8 clients (rueidis): replica-1 promoted at 3.20s; first command served there not before the cell ended, first acquisition not before the cell ended",
		"failover follow, lua-release 4 clients (rueidis): replica-1 promoted at 3.00s; first command served there 0.06s before it was seen, first acquisition 0.04s before it was seen",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
	if all := Notes(rec); !strings.Contains(strings.Join(all, "\n"), want[0]) {
		t.Errorf("Notes lack the follow note:\n%s", strings.Join(all, "\n"))
	}
}
