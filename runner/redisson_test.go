package runner_test

import "testing"

// Issue 30's must-hold without faults: on baseline (8 clients, one lock, a
// 10 s TTL far above the 1 ms hold) every form of Redisson keeps
// exclusion: RLock with its watchdog and with a lease time, RFencedLock,
// and RPermitExpirableSemaphore with one permit (a cell of handovers each;
// Redisson hands a lock over through its pub/sub notice).
func TestRedissonBaseline(t *testing.T) {
	t.Parallel() // on a redis-server of its own
	cells := runLibraries(t, "baseline", []string{"drv:redisson", "drv:redisson-lease", "drv:redisson-fenced", "drv:redisson-semaphore"}, handovers())
	for name, c := range cells {
		if c.Acquisitions == 0 || c.Violations.Overlaps != 0 || c.Violations.LostUpdates != 0 {
			t.Errorf("%s: %d acquisitions, %d overlaps, %d lost updates; want acquisitions and neither", name,
				c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates)
		}
	}
}

// long-hold (holds twice the TTL, at longHold's scale): RLock with a lease
// time lets a waiter take the expired lock while its holder works
// (overlaps); with the watchdog (lockWatchdogTimeout = the 600 ms TTL,
// renewed every 200 ms) it keeps it (none), as shipped and observed; the
// observed form's renewed notices put every hold within its lease (no late
// hold), where the default form, which sends none, has late holds by the
// record's reckoning only.
func TestRedissonLongHold(t *testing.T) {
	t.Parallel()
	cells := runLibraries(t, "long-hold", []string{"drv:redisson", "drv:redisson-observed", "drv:redisson-lease"}, longHold())
	if c := cells["drv:redisson-lease"]; c.Violations.Overlaps == 0 {
		t.Errorf("drv:redisson-lease: no overlap in %d acquisitions holding 1.2 s on a 600 ms lease time", c.Acquisitions)
	}
	for _, name := range []string{"drv:redisson", "drv:redisson-observed"} {
		if c := cells[name]; c.Acquisitions == 0 || c.Violations.Overlaps != 0 {
			t.Errorf("%s: %d acquisitions, %d overlaps; want acquisitions and no overlap (the watchdog renews)",
				name, c.Acquisitions, c.Violations.Overlaps)
		}
	}
	if m := cells["drv:redisson-observed"].Margins; m == nil || m.Holds == 0 || m.LateHolds != 0 {
		t.Errorf("drv:redisson-observed: margins %+v, want holds and none late (the renewed notices move each lease's expiry past the 1.2 s hold)", m)
	}
}
