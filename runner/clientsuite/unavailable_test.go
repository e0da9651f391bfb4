package clientsuite_test

import (
	"math"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/workloads"
)

// A lock name is unavailable only while it is free and a client waits for
// it: a lone client that thinks between acquisitions finds the lock free
// every time and never waits; clients of the none variant never wait at
// all. Both show 0, not the think time or the time a key sat unused.
func TestUnavailableWithoutWaiters(t *testing.T) {
	// One client, or clients that never wait: no unavailability at any
	// load. Beside the other parallel tests, on servers of its own.
	t.Parallel()
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{1},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Think: dist(t, "300ms"), Duration: 1500 * time.Millisecond},
	})
	c := cellOf(t, rec, "lua-release")
	if c.Acquisitions < 3 || c.FailedAttempts != 0 {
		t.Fatalf("lua-release: %d acquisitions, %d busy tries; want a few, each at the first try", c.Acquisitions, c.FailedAttempts)
	}
	if u := c.Violations.LongestUnavailableMS; u != 0 {
		t.Errorf("one client with think time: unavailable %.3fms, want 0 (the lock was free whenever it asked)", u)
	}

	rec = runPlan(t, plan.Plan{
		Variants: []string{"none"}, Clients: []int{2},
		Workload: workloads.Spec{Keys: 256, Hold: dist(t, "1ms"), Duration: 1500 * time.Millisecond},
	})
	if u := cellOf(t, rec, "none").Violations.LongestUnavailableMS; u != 0 {
		t.Errorf("none on 256 keys: unavailable %.3fms, want 0 (no client ever waits)", u)
	}
}

// A holder that crashes leaves the lock taken in Redis while the oracle's
// resource is free: the waiters make it unavailable. The TTL-less simple
// lock is lost for the rest of the cell; a TTL lock comes back after one
// TTL, and so does a fail-fast semaphore's permit, whose clients, trying
// again at once, wait all along.
func TestUnavailableAfterHolderCrash(t *testing.T) {
	const ttl = time.Second // long enough that a loaded machine's retry delays stay within 20 %
	rec := runPlan(t, plan.Plan{
		Variants: []string{"simple", "lua-release", "sem-basic"}, Clients: []int{4}, TTL: ttl,
		Faults:   []faults.Fault{mustFault(t, "at=300ms holder-crash")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 2500 * time.Millisecond},
	})
	for _, c := range rec.Cells {
		if len(c.Faults) != 1 || c.Violations.Crashed != 1 {
			t.Fatalf("%s: crashed %d, fault events %+v; want one crash", c.Variant, c.Violations.Crashed, c.Faults)
		}
		unavailable := c.Violations.LongestUnavailableMS
		want, tolerance := float64(ttl/time.Millisecond), 0.2
		if c.Variant == "simple" {
			want, tolerance = (c.ElapsedS-c.Faults[0].AtS)*1000, 0.1 // the rest of the cell
		}
		t.Logf("%s: crash at %.3fs of %.3fs, unavailable %.1fms, want %.1fms ±%.0f%%", c.Variant, c.Faults[0].AtS, c.ElapsedS, unavailable, want, 100*tolerance)
		if math.Abs(unavailable-want) > tolerance*want {
			t.Errorf("%s: unavailable %.1fms, want %.1fms ±%.0f%%", c.Variant, unavailable, want, 100*tolerance)
		}
	}
}
