package faultsuite_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// holder-pause with python-redis-lock's auto_renewal: the holder's process
// is stopped (SIGSTOP) for 2 s, past the 1 s TTL (the library's expire is
// whole seconds: the scenario's 300 ms would be 1 s, as long as its 1 s
// pause), and its renewal thread freezes with it: a client of the other
// process takes the lock while the paused one is still inside. A 1 s
// acquire timeout is the waiters' BLPOP timeout, after which they try the
// expired key again (a waiter is woken only by a release). The paused
// holder's renewal fails once it runs again: lease_lost, counted as a
// notice in the margins.
func TestPyPIDriversHolderPause(t *testing.T) {
	topotest.Faulted(t)
	t.Parallel()
	ttl, timeout, duration, procs := time.Second, time.Second, 3*time.Second, 2
	cells := runLibraries(t, "holder-pause", []string{"drv:python-redis-lock-renew"}, plan.Overrides{
		TTL: &ttl, AcquireTimeout: &timeout, Duration: &duration, DriverProcs: &procs,
		Faults: []string{"at=500ms holder-pause for=2s"},
	})
	c := cells["drv:python-redis-lock-renew"]
	if c.Violations.Overlaps == 0 {
		t.Errorf("drv:python-redis-lock-renew: paused 2 s on a 1 s TTL, no overlap in %d acquisitions", c.Acquisitions)
	}
	if m := c.Margins; m != nil {
		t.Logf("margins: %d of %d holds late (p50 %.0fµs), %d notices (p50 %.0fµs after expiry)",
			m.LateHolds, m.Holds, m.LateUS.P50, m.Notices, m.LossNoticeUS.P50)
	}
}

// Redlock proper, pottery on 5 local masters (mode masters), on
// redlock-clock-jump: a holder with a bare majority, one of its masters'
// clocks jumping past the TTL, the down masters back empty; a second
// client reaches a majority while the first holds: an overlap.
func TestPyPIDriversRedlockClockJump(t *testing.T) {
	topotest.Faulted(t)
	t.Parallel()
	cells := runLibraries(t, "redlock-clock-jump", []string{"drv:pottery-redlock"}, clockJumpWindow())
	if c := cells["drv:pottery-redlock"]; c.Violations.Overlaps == 0 {
		t.Errorf("redlock-clock-jump: drv:pottery-redlock: no overlap in %d acquisitions", c.Acquisitions)
	}
}
