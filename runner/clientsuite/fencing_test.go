package clientsuite_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/workloads"
)

// fencingPlan: a holder paused 500 ms, past its 200 ms TTL, while 7 other
// clients take the lock after it, each with a higher token, and write.
func fencingPlan(t *testing.T, fence string, variants ...string) plan.Plan {
	return plan.Plan{
		Variants: variants, Clients: []int{8}, TTL: 200 * time.Millisecond, Fence: fence,
		Faults:   []faults.Fault{mustFault(t, "at=300ms holder-pause for=500ms")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 1500 * time.Millisecond},
	}
}

// Counted: the paused holder's late write carries an older token than
// writes made since, so it is a stale write, and it is applied (the
// updates of the holders in between are lost). lua-release's leases carry
// no token: its late write loses updates the same way, uncounted.
func TestFencingCount(t *testing.T) {
	rec := runPlan(t, fencingPlan(t, plan.FenceCount, "lua-release", "fenced"))
	if rec.Config.Fence != plan.FenceCount {
		t.Errorf("record fence %q; want count", rec.Config.Fence)
	}
	f, l := cellOf(t, rec, "fenced").Violations, cellOf(t, rec, "lua-release").Violations
	t.Logf("fenced: %+v", f)
	t.Logf("lua-release: %+v", l)
	if f.StaleWrites == 0 || f.RejectedWrites != 0 || f.LostUpdates == 0 {
		t.Errorf("fenced: %d stale, %d rejected writes, %d lost updates; want > 0, 0, > 0", f.StaleWrites, f.RejectedWrites, f.LostUpdates)
	}
	if l.StaleWrites != 0 || l.RejectedWrites != 0 || l.LostUpdates == 0 {
		t.Errorf("lua-release: %d stale, %d rejected writes, %d lost updates; want 0 and 0 (no tokens), > 0", l.StaleWrites, l.RejectedWrites, l.LostUpdates)
	}
}

// Rejected: the resource refuses the paused holder's write, so no stale
// write is accepted and no update is lost, although the lock overlapped;
// the refused holder counts a lost lease.
func TestFencingReject(t *testing.T) {
	rec := runPlan(t, fencingPlan(t, plan.FenceReject, "fenced"))
	if rec.Config.Fence != plan.FenceReject {
		t.Errorf("record fence %q; want reject", rec.Config.Fence)
	}
	v := rec.Cells[0].Violations
	t.Logf("fenced: %+v", v)
	if v.StaleWrites != 0 || v.RejectedWrites == 0 || v.LostUpdates != 0 {
		t.Errorf("%d stale, %d rejected writes, %d lost updates; want 0, > 0, 0", v.StaleWrites, v.RejectedWrites, v.LostUpdates)
	}
	if v.Overlaps == 0 || v.LeaseLost < v.RejectedWrites {
		t.Errorf("%d overlaps, %d leases lost; want the pause to overlap and each refused holder to count a lost lease", v.Overlaps, v.LeaseLost)
	}
}
