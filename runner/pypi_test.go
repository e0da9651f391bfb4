package runner_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
)

// Issue 30's must-holds without faults, for the drivers of PyPI's
// libraries (each in a venv of its own, made by make drivers): on baseline
// (8 clients, one lock, a 10 s TTL far above the 1 ms hold) redis-py 8's
// Lock, python-redis-lock in both forms and pottery's Redlock keep
// exclusion (a cell of handovers each).
func TestPyPIDriversBaseline(t *testing.T) {
	t.Parallel() // on a redis-server of its own
	cells := runLibraries(t, "baseline",
		[]string{"drv:redis-py-8", "drv:python-redis-lock", "drv:python-redis-lock-renew", "drv:pottery-redlock"}, handovers())
	for name, c := range cells {
		if c.Acquisitions == 0 || c.Violations.Overlaps != 0 || c.Violations.LostUpdates != 0 {
			t.Errorf("%s: %d acquisitions, %d overlaps, %d lost updates; want acquisitions and neither", name,
				c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates)
		}
	}
}

// long-hold, the work outlasting the TTL. python-redis-lock's expire is
// whole seconds (a 200 ms TTL would be 1 s, above the scenario's 400 ms
// hold), so the test gives a 2 s TTL and 3 s holds: without renewal a
// waiter, whose BLPOP waits at most the expire, takes the expired lock
// while its holder still works (overlaps); with auto_renewal the library's
// thread extends the lock every 1.33 s and keeps it (none, and no hold
// ends after its lease: the renewed notices move its expiry). Each form
// in a plan of its own, side by side: 4 s, one hold and the next.
func TestPyPIDriversLongHold(t *testing.T) {
	t.Parallel()
	ttl, hold, duration := 2*time.Second, "3s", 4*time.Second
	for _, tc := range []struct {
		variant string
		renews  bool
	}{{"drv:python-redis-lock", false}, {"drv:python-redis-lock-renew", true}} {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			c := runLibraries(t, "long-hold", []string{tc.variant},
				plan.Overrides{TTL: &ttl, Hold: &hold, Duration: &duration})[tc.variant]
			if c.Acquisitions == 0 || (c.Violations.Overlaps == 0) == !tc.renews {
				t.Errorf("%s: %d overlaps in %d acquisitions holding 3 s on a 2 s TTL; want overlaps only without renewal",
					tc.variant, c.Violations.Overlaps, c.Acquisitions)
			}
			m := c.Margins
			if m == nil || m.Holds == 0 {
				t.Fatalf("%s: margins %+v, want holds", tc.variant, m)
			}
			t.Logf("%s: validity left p50 %.0fµs, %d of %d holds late (p50 %.0fµs), %d notices", tc.variant,
				m.ValidityLeftUS.P50, m.LateHolds, m.Holds, m.LateUS.P50, m.Notices)
			if (m.LateHolds == 0) != tc.renews {
				t.Errorf("%s: %d of %d holds late", tc.variant, m.LateHolds, m.Holds)
			}
		})
	}
}
