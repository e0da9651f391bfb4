package faultsuite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// A clock jump on the server past the locks' TTL expires the lease the
// holder has: its release finds the key gone (lease lost), and the next
// client may enter while it still holds (an overlap). The lock is held
// almost all the time (8 clients on one name, 100 ms holds, waiters
// retrying every millisecond), so a holder is inside when the clock jumps;
// the clock jumps twice, so one jump falling into a handover (a few
// percent of the time on a loaded host) does not fail the test.
func TestClockFault(t *testing.T) {
	topotest.Faulted(t)
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{8},
		Retry: variants.RetryPolicy{Kind: variants.RetryFixed, Min: time.Millisecond, Max: time.Millisecond},
		Faults: []faults.Fault{
			mustFault(t, "at=500ms clock node=master jump=+30s"),
			mustFault(t, "at=1s clock node=master jump=+30s"),
		},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "100ms"), Duration: 1500 * time.Millisecond},
	})
	c := rec.Cells[0]
	if len(c.Faults) != 2 {
		t.Fatalf("fault events %+v, want 2", c.Faults)
	}
	for i, want := range []float64{0.5, 1} {
		f := c.Faults[i]
		if f.Action != "clock +30s" || f.Node != "master" || f.Error != "" {
			t.Fatalf("fault event %d: %+v", i, f)
		}
		if f.AtS < want-0.05 || f.AtS > want+0.3 {
			t.Errorf("clock jump %d at %.2fs, want %.1fs", i, f.AtS, want)
		}
	}
	if c.Violations.LeaseLost == 0 && c.Violations.Overlaps == 0 {
		t.Errorf("two +30s jumps on a 10 s TTL: %d leases lost, %d overlaps in %d acquisitions; want a jump to expire the held lease",
			c.Violations.LeaseLost, c.Violations.Overlaps, c.Acquisitions)
	}
	t.Logf("+30s at %.2fs and %.2fs: %d acquisitions, %d leases lost, %d overlaps",
		c.Faults[0].AtS, c.Faults[1].AtS, c.Acquisitions, c.Violations.LeaseLost, c.Violations.Overlaps)
}

// Clock faults are refused before the run where clocks cannot move: on a
// server lockbench did not start (even with --allow-destructive), and on
// nodes started without the clock shim.
func TestClockFaultRefused(t *testing.T) {
	ep := startRedis(t)
	clock := []faults.Fault{mustFault(t, "at=100ms clock node=master jump=+30s")}
	for name, tc := range map[string]struct {
		p    plan.Plan
		want error
	}{
		"external":    {plan.Plan{Topology: topologies.Spec{Targets: []string{"redis://" + ep.Addr}}}, topologies.ErrDestructive},
		"destructive": {plan.Plan{Topology: topologies.Spec{Targets: []string{"redis://" + ep.Addr}}, AllowDestructive: true}, faults.ErrBadFault},
	} {
		tc.p.Variants, tc.p.Clients, tc.p.Faults = []string{"lua-release"}, []int{1}, clock
		tc.p.Workload = workloads.Spec{Duration: 300 * time.Millisecond}
		if _, err := runner.Run(context.Background(), tc.p, runner.Options{}); !errors.Is(err, faults.ErrBadFault) || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v; want ErrBadFault and %v", name, err, tc.want)
		}
	}
	t.Setenv(topologies.ClockShimEnv, "off")
	_, err := runner.Run(context.Background(), plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{1}, Faults: clock,
		Topology: topologies.Spec{Name: "local"}, Workload: workloads.Spec{Duration: 300 * time.Millisecond},
	}, runner.Options{})
	if !errors.Is(err, faults.ErrBadFault) || !errors.Is(err, topologies.ErrNoClockShim) {
		t.Errorf("without the clock shim: %v; want ErrBadFault and ErrNoClockShim", err)
	}
}

// Kleppmann's counterexample to Redlock, as the redlock-clock-jump
// scenario runs it: node-4 and node-5 are down, so a holder has exactly
// the majority node-1..node-3; node-3's clock jumps past the TTL, which
// expires the holder's key there; node-4 and node-5 come back empty, and
// the other client takes node-3, node-4 and node-5. Without the jump the
// other client never reaches a majority while the holder holds.
func TestRedlockClockJump(t *testing.T) {
	topotest.Faulted(t)
	s, err := plan.LookupScenario("redlock-clock-jump")
	if err != nil {
		t.Fatal(err)
	}
	withJump, err := plan.Build(&s, clockJumpWindow()) // a 6 s hold: the window after the restarts
	if err != nil {
		t.Fatal(err)
	}
	withoutJump := withJump
	withoutJump.Faults = nil
	for _, f := range withJump.Faults {
		if f.Kind != faults.Clock {
			withoutJump.Faults = append(withoutJump.Faults, f)
		}
	}
	if len(withoutJump.Faults) != len(withJump.Faults)-1 {
		t.Fatalf("the scenario's faults %v have no one clock fault", withJump.Faults)
	}
	with := runPlanOn(t, withJump.Topology, withJump).Cells[0]
	without := runPlanOn(t, withoutJump.Topology, withoutJump).Cells[0]
	// The control's premise, a first holder on node-1..node-3 alone,
	// holds because node-4 and node-5 are down before the first acquire
	// (a fault at 0 has acted when the measured phase begins): when the
	// schedule ran beside the clients, they could split the five nodes at
	// the very start, and the restart of node-4 and node-5 then took the
	// holder's majority by itself (1 overlap in 3 runs of 3 in a row once
	// under make test).
	t.Logf("with the jump: %d acquisitions, %d overlaps; without: %d acquisitions, %d overlaps",
		with.Acquisitions, with.Violations.Overlaps, without.Acquisitions, without.Violations.Overlaps)
	if with.Violations.Overlaps == 0 {
		t.Errorf("with node-3's clock jump: no overlap (events %+v); want a second holder on node-3..node-5", with.Faults)
	}
	if without.Violations.Overlaps != 0 {
		t.Errorf("without the clock jump: %d overlaps; want none", without.Violations.Overlaps)
	}
}

// A server's clock jump expires every lock on it at once: with every
// client holding a lock of its own when the clock jumps, every holder's
// release finds its lease gone.
func TestServerClockJumpExpiresEveryLock(t *testing.T) {
	topotest.Faulted(t)
	const clients = 4
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{clients},
		Faults: []faults.Fault{mustFault(t, "at=500ms clock node=master jump=+30s")},
		// Holds of 1 s from the start: every client is inside at 0.5 s.
		Workload: workloads.Spec{KeyPerClient: true, Hold: dist(t, "1s"), Duration: 1500 * time.Millisecond},
	})
	c := rec.Cells[0]
	t.Logf("%d acquisitions, %d leases lost", c.Acquisitions, c.Violations.LeaseLost)
	if c.Violations.LeaseLost < clients {
		t.Errorf("%d leases lost of %d holders at the jump; want every holder's", c.Violations.LeaseLost, clients)
	}
}
