package faultsuite_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// holder-pause stops the holder's JVM (SIGSTOP) for 1 s, past the 300 ms
// TTL: Redisson's watchdog freezes with it (the shape of redisson#5698, a
// watchdog that fails to renew for longer than its timeout), the lock
// expires, and a client of the other JVM takes it while the paused holder
// is still inside. Two processes; 2 s measured hold the whole pause (at
// 500 ms) and the handovers after it. Once the JVM runs again its
// watchdog's next round finds the lock gone: the holder is told
// (lease_lost), after its lease had expired.
func TestRedissonHolderPause(t *testing.T) {
	topotest.Faulted(t)
	t.Parallel()
	duration, procs := 2*time.Second, 2
	cells := runLibraries(t, "holder-pause", []string{"drv:redisson"}, plan.Overrides{Duration: &duration, DriverProcs: &procs})
	c := cells["drv:redisson"]
	if c.Violations.Overlaps == 0 {
		t.Errorf("drv:redisson: paused 1 s on a 300 ms watchdog timeout, no overlap in %d acquisitions", c.Acquisitions)
	}
	if m := c.Margins; m != nil {
		t.Logf("drv:redisson: %d lease-lost notices, %d late, late by p50 %.0fµs; %d of %d holds late, by p50 %.0fµs",
			m.Notices, m.LateNotices, m.LossNoticeUS.P50, m.LateHolds, m.Holds, m.LateUS.P50)
	}
}

// sentinel-failover: the replication link is cut at 1 s, Sentinel promotes
// the replica at 3 s, the old master is demoted after the heal at 7 s.
// Issue 30 expected drv:redisson to overlap here, as redis-py does; it does
// not, and this test holds what it does instead: Redisson 3.45.1's default
// checkLockSyncedSlaves follows each lock write with WAIT for the replica
// and fails the call ("None of slaves were synced") when none acknowledged
// it, so no client gets the lock on the cut-off master (errors, no
// holder) and the promoted replica has every lock that was granted. The
// scenario's whole 8 s, since the faults span it. (redisson-unsynced, the
// check off, overlapped in 1 of 3 runs: not a bound a test can hold.)
func TestRedissonSentinelFailover(t *testing.T) {
	// Sequential: whether a holder still holds when the clients reach the
	// new master is timing, which a loaded machine moved (CI, beside the
	// parallel fault tests: redis-py without an overlap, Redisson with one).
	topotest.Faulted(t)
	cells := runLibraries(t, "sentinel-failover", []string{"drv:redisson"}, plan.Overrides{})
	if c := cells["drv:redisson"]; c.Errors == 0 || c.Violations.Overlaps != 0 {
		t.Errorf("drv:redisson through Sentinel: %d errors, %d overlaps in %d acquisitions; want errors (the synced-replica check failing during the cut) and no overlap",
			c.Errors, c.Violations.Overlaps, c.Acquisitions)
	}
}
