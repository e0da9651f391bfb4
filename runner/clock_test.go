package runner_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// A clock jump on the server past the locks' TTL expires the lease the
// holder has: its release finds the key gone (lease lost), and the next
// client may enter while it still holds (an overlap). The lock is held
// almost all the time (8 clients on one name, 20 ms holds), so a holder
// is inside when the clock jumps.
func TestClockFault(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{8},
		Faults:   []faults.Fault{mustFault(t, "at=500ms clock node=master jump=+30s")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "20ms"), Duration: 1500 * time.Millisecond},
	})
	c := rec.Cells[0]
	if len(c.Faults) != 1 || c.Faults[0].Action != "clock +30s" || c.Faults[0].Node != "master" || c.Faults[0].Error != "" {
		t.Fatalf("fault events %+v", c.Faults)
	}
	if at := c.Faults[0].AtS; at < 0.45 || at > 0.8 {
		t.Errorf("clock jump at %.2fs, want 0.5s", at)
	}
	if c.Violations.LeaseLost == 0 && c.Violations.Overlaps == 0 {
		t.Errorf("a +30s jump on a 10 s TTL: %d leases lost, %d overlaps in %d acquisitions; want the jump to expire the held lease",
			c.Violations.LeaseLost, c.Violations.Overlaps, c.Acquisitions)
	}
	t.Logf("+30s at %.2fs: %d acquisitions, %d leases lost, %d overlaps", c.Faults[0].AtS, c.Acquisitions, c.Violations.LeaseLost, c.Violations.Overlaps)
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
