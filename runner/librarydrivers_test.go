package runner_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner/runnertest"
)

// runLibraries runs the built-in scenario with the library drivers of
// variants and ov's other settings (runnertest.RunChecked).
func runLibraries(t *testing.T, scenario string, variants []string, ov plan.Overrides) map[string]record.Cell {
	t.Helper()
	ov.Variants = variants
	return runnertest.RunChecked(t, runnertest.ScenarioPlan(t, scenario, runnertest.WithLibraryDrivers(t, ov)))
}

// Issue 29's must-holds without faults: on baseline (8 clients, one lock,
// a TTL of 10 s far above the 1 ms hold) redis-py's Lock, node-redlock and
// sesame-redlock keep exclusion: no overlap, no lost update. One second
// measured is a few hundred acquisitions per library here (each hands the
// lock over through a retry sleep), enough for a lost handover to show.
func TestLibrariesBaseline(t *testing.T) {
	t.Parallel() // on a redis-server of its own
	second := time.Second
	cells := runLibraries(t, "baseline", []string{"drv:redis-py", "drv:node-redlock", "drv:sesame-redlock"},
		plan.Overrides{Clients: []int{8}, Duration: &second})
	for name, c := range cells {
		if c.Acquisitions == 0 || c.Violations.Overlaps != 0 || c.Violations.LostUpdates != 0 {
			t.Errorf("%s: %d acquisitions, %d overlaps, %d lost updates; want acquisitions and neither", name,
				c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates)
		}
	}
}

// long-hold (a 400 ms hold, a 200 ms TTL): redis-py's Lock and node-redlock
// do not renew, so a waiter takes the expired lock while its holder works
// (overlaps); sesame-redlock's using() extends the lock while the routine
// runs and keeps it (none). Two seconds give each library several holds
// past the TTL (each hold is 400 ms, one at a time).
func TestLibrariesLongHold(t *testing.T) {
	t.Parallel()
	duration := 2 * time.Second
	cells := runLibraries(t, "long-hold", []string{"drv:redis-py", "drv:node-redlock", "drv:sesame-redlock-using"},
		plan.Overrides{Duration: &duration})
	for _, name := range []string{"drv:redis-py", "drv:node-redlock"} {
		if c := cells[name]; c.Violations.Overlaps == 0 {
			t.Errorf("%s: no overlap in %d acquisitions holding 400 ms on a 200 ms TTL without renewal", name, c.Acquisitions)
		}
	}
	if c := cells["drv:sesame-redlock-using"]; c.Acquisitions == 0 || c.Violations.Overlaps != 0 {
		t.Errorf("drv:sesame-redlock-using: %d acquisitions, %d overlaps; want acquisitions and no overlap (using() renews)",
			c.Acquisitions, c.Violations.Overlaps)
	}
	// The margins: every library reports its validity at acquire, so
	// the holds of those that do not renew end after their lease
	// expired; using()'s renewed notices move its leases' expiry, so
	// none of its holds is late.
	for name, c := range cells {
		m := c.Margins
		if m == nil || m.Holds == 0 || m.ValidityLeftUS.P50 <= 0 || m.ValidityLeftUS.Max > 200_000 {
			t.Errorf("%s: margins %+v, want holds and validity left within the 200 ms TTL", name, m)
			continue
		}
		t.Logf("%s: validity left p50 %.0fµs, %d of %d holds late (p50 %.0fµs), %d notices", name,
			m.ValidityLeftUS.P50, m.LateHolds, m.Holds, m.LateUS.P50, m.Notices)
		if renews := name == "drv:sesame-redlock-using"; renews != (m.LateHolds == 0) {
			t.Errorf("%s: %d of %d holds late", name, m.LateHolds, m.Holds)
		}
	}
}
