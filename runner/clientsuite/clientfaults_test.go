package clientsuite_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/workloads"
)

// long-hold: the work outlasts the TTL. set-nx-ex overlaps and its late
// releases free other holders' locks; lua-release overlaps but never frees
// another's lock; the watchdog renews and keeps exclusion.
func TestLongHold(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"set-nx-ex", "lua-release", "watchdog"}, Clients: []int{8}, TTL: 200 * time.Millisecond,
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "400ms"), Duration: 2 * time.Second},
	})
	v := func(name string) record.Violations { return cellOf(t, rec, name).Violations }
	if s := v("set-nx-ex"); s.Overlaps == 0 || s.StaleReleases == 0 {
		t.Errorf("set-nx-ex: %d overlaps, %d stale releases; want both > 0", s.Overlaps, s.StaleReleases)
	}
	if l := v("lua-release"); l.Overlaps == 0 || l.StaleReleases != 0 {
		t.Errorf("lua-release: %d overlaps, %d stale releases; want > 0 and 0", l.Overlaps, l.StaleReleases)
	}
	if w := v("watchdog"); w.Overlaps != 0 {
		t.Errorf("watchdog: %d overlaps", w.Overlaps)
	}
}

// holder-crash: a holder dies holding the lock. The TTL-less simple lock
// stays taken to the end of the run; the TTL locks free it after one TTL.
func TestHolderCrash(t *testing.T) {
	crash := mustFault(t, "at=300ms holder-crash")
	rec := runPlan(t, plan.Plan{
		Variants: []string{"simple", "set-nx-ex", "lua-release", "watchdog"}, Clients: []int{4},
		TTL: 300 * time.Millisecond, AcquireTimeout: 400 * time.Millisecond, Faults: []faults.Fault{crash},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 2 * time.Second},
	})
	for _, c := range rec.Cells {
		unavailable := c.Violations.LongestUnavailableMS
		t.Logf("%s: crashed %d, timeouts %d, longest unavailable %.0fms", c.Variant, c.Violations.Crashed, c.Timeouts, unavailable)
		if c.Violations.Crashed != 1 {
			t.Errorf("%s: %d clients crashed, want 1", c.Variant, c.Violations.Crashed)
		}
		if len(c.Faults) != 1 || c.Faults[0].Action != "holder-crash" || c.Faults[0].AtS < 0.3 || !strings.HasPrefix(c.Faults[0].Node, "client-") {
			t.Errorf("%s: fault events %+v; want the crash of one client at 0.3s or later", c.Variant, c.Faults)
		}
		if c.Variant == "simple" {
			if c.Timeouts == 0 || unavailable < 1500 {
				t.Errorf("simple: %d timeouts, unavailable %.0fms; want timeouts and the lock lost to the end (1.7 s)", c.Timeouts, unavailable)
			}
			continue
		}
		if unavailable < 250 || unavailable > 700 {
			t.Errorf("%s: unavailable %.0fms; want about one TTL (300ms)", c.Variant, unavailable)
		}
	}
}

// crash-before-expire: a client dies between SETNX and EXPIRE, leaving a
// lock without expiry; a waiter finds it (PTTL -1) and sets the expiry, so
// the lock comes back after one TTL.
func TestCrashBeforeExpire(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"setnx-expire"}, Clients: []int{4}, TTL: 300 * time.Millisecond,
		Faults:   []faults.Fault{mustFault(t, "at=300ms step-crash step=after-setnx count=1")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 1500 * time.Millisecond},
	})
	c := rec.Cells[0]
	if c.Violations.Crashed != 1 || c.Violations.LongestUnavailableMS < 250 || c.Violations.LongestUnavailableMS > 800 {
		t.Errorf("crashed %d, unavailable %.0fms; want 1 and about one TTL (300ms)", c.Violations.Crashed, c.Violations.LongestUnavailableMS)
	}
	if last := c.Series[len(c.Series)-1]; last.Acquisitions == 0 {
		t.Errorf("no acquisitions in the last second: the lock never came back")
	}
}

// release-race: a delay between GET and DEL longer than the TTL makes
// get-del delete a newer holder's lock (overlaps); lua-release, whose
// compare-and-delete is one step, shows none.
func TestReleaseRace(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"get-del", "lua-release"}, Clients: []int{8}, TTL: 150 * time.Millisecond,
		Faults:   []faults.Fault{mustFault(t, "at=0s step-delay step=between-get-and-del delay=250ms fraction=0.3")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "50ms"), Duration: 2 * time.Second},
	})
	if g := cellOf(t, rec, "get-del").Violations; g.Overlaps == 0 {
		t.Errorf("get-del: no overlaps with a 250ms pause between GET and DEL and a 150ms TTL")
	}
	if l := cellOf(t, rec, "lua-release").Violations; l.Overlaps != 0 {
		t.Errorf("lua-release: %d overlaps", l.Overlaps)
	}
}

// A TTL shorter than the hold time lets the lock expire under its holder:
// the expiring locks overlap, the watchdog renews and does not.
func TestShortTTLOverlapsUnlessRenewed(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"set-nx-ex", "lua-release", "watchdog"}, Clients: []int{8}, TTL: 200 * time.Millisecond,
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "400ms"), Duration: 2 * time.Second},
	})
	for _, c := range rec.Cells {
		overlaps := c.Violations.Overlaps
		if c.Variant == "watchdog" {
			if overlaps != 0 || c.Acquisitions == 0 {
				t.Errorf("watchdog: overlaps %d with %d acquisitions; want 0 overlaps", overlaps, c.Acquisitions)
			}
			continue
		}
		if overlaps == 0 {
			t.Errorf("%s with TTL 50ms and 100ms holds: no overlaps", c.Variant)
		}
	}
}
