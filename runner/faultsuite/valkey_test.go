package faultsuite_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// The fault scenarios reproduce their predicted outcome on Valkey as on
// Redis: a failover through Sentinel and one through the cluster after a
// cut link, a split brain behind the proxies, a server's clock jump and a
// Redlock master's (the clock shim in valkey-server) each let a second
// holder in, and every check the scenario predicts holds; the baseline
// has no violation. Each runs at once beside the others, on a topology of
// its own, at the scenario's length (baseline's shortened), but
// sentinel-failover, which runs first and alone, up to overlapTries times
// (untilOverlap): with 4 clients on one name its one overlap needs a
// holder on the old master still holding when the others reach the new
// one, which the others' load delayed past the hold (a CI-like run on 5
// December: 0 overlaps in 8 acquisitions), as it did for
// TestSentinelFailoverAfterCut's. The server's
// clock jumps at 1 s into holds of 600 ms, not the scenario's 200 ms: the
// jump then lands at least 200 ms before the holder releases, however late
// the holds run, where under this test's load a waiter retrying every 1 ms
// once did not get in before a 200 ms hold ended (lease lost 1, overlaps 0).
// redlock-clock-jump holds 6 s, not 3 (clockJumpWindow): in a CI run on 7
// December the masters came back at 2.46 and 2.54 s and the second client
// did not reach them before the first holder's release at 3 s.
func TestScenariosOnValkey(t *testing.T) {
	topotest.Faulted(t)
	topotest.NeedServer(t, topologies.ServerValkey)
	second := time.Second
	for _, tc := range []struct {
		scenario string
		variants []string
		duration *time.Duration // nil: the scenario's
		hold     string         // "": the scenario's
		overlaps bool           // a second holder is predicted
		timed    bool           // its overlap is timing: alone, untilOverlap
	}{
		{"sentinel-failover", []string{"lua-release"}, nil, "", true, true},
		{"baseline", []string{"set-nx-ex", "lua-release"}, &second, "", false, false},
		{"cluster-failover", []string{"lua-release"}, nil, "", true, false},
		{"split-brain", []string{"lua-release"}, nil, "", true, false},
		{"server-clock-jump", []string{"lua-release"}, nil, "600ms", true, false},
		{"redlock-clock-jump", []string{"redlock"}, clockJumpWindow().Duration, *clockJumpWindow().Hold, true, false},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			if !tc.timed {
				t.Parallel()
			}
			s, err := plan.LookupScenario(tc.scenario)
			if err != nil {
				t.Fatal(err)
			}
			o := plan.Overrides{Variants: tc.variants, Duration: tc.duration, Servers: []string{topologies.ServerValkey}}
			if tc.hold != "" {
				o.Hold = &tc.hold
			}
			p := scenarioPlan(t, tc.scenario, o)
			var cells []record.Cell
			if tc.timed {
				cells = []record.Cell{untilOverlap(t, func() record.Cell { return runPlanOn(t, p.Topology, p).Cells[0] })}
			} else {
				cells = runPlanOn(t, p.Topology, p).Cells
			}
			for _, c := range cells {
				if !strings.HasPrefix(c.Product, "valkey ") {
					t.Errorf("%s ran on %q; want valkey", c.Variant, c.Product)
				}
				if tc.overlaps != (c.Violations.Overlaps > 0) {
					t.Errorf("%s: %d overlaps; want a second holder: %v (events %+v)", c.Variant, c.Violations.Overlaps, tc.overlaps, c.Faults)
				}
				if !tc.overlaps && (c.Violations.LostUpdates > 0 || c.Violations.StaleReleases > 0) {
					t.Errorf("%s: violations %+v; want none", c.Variant, c.Violations)
				}
				for _, cond := range s.Expect[c.Variant] {
					if ok, err := record.Check(cond, &c); !ok || err != nil {
						t.Errorf("%s: %s does not hold (%v): violations %+v", c.Variant, cond, err, c.Violations)
					}
				}
				for _, e := range c.Faults {
					if e.Error != "" {
						t.Errorf("%s: fault event %+v failed", c.Variant, e)
					}
				}
				t.Logf("%s on %s: %d acquisitions, %d overlaps, %d lost updates, %d leases lost; %d fault events",
					c.Variant, c.Product, c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates, c.Violations.LeaseLost, len(c.Faults))
			}
		})
	}
}
