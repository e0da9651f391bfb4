package runner_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner/runnertest"
	"github.com/lockbench/lockbench/variants"
)

// runLibraries runs the built-in scenario with the library drivers of
// variants and ov's other settings (runnertest.RunChecked).
func runLibraries(t *testing.T, scenario string, variants []string, ov plan.Overrides) map[string]record.Cell {
	t.Helper()
	ov.Variants = variants
	return runnertest.RunChecked(t, runnertest.ScenarioPlan(t, scenario, runnertest.WithLibraryDrivers(t, ov)))
}

// longHold is long-hold's shape (a hold twice the TTL) at three times its
// scale: a 600 ms TTL, 1.2 s holds, 3 s measured. A renewing library
// renews a third or a sixth of the TTL before expiry; at long-hold's own
// 200 ms that left 133 ms of slack, which a loaded machine exceeded (CI
// beside runner/faultsuite: Redisson's watchdog missed a renewal, 1
// overlap in 6 acquisitions); at 600 ms it leaves 400 ms. A library that
// does not renew still loses its lock 600 ms into each hold.
func longHold() plan.Overrides {
	ttl, duration, hold := 600*time.Millisecond, 3*time.Second, "1200ms"
	return plan.Overrides{TTL: &ttl, Hold: &hold, Duration: &duration}
}

// handovers is baseline's shape for the library tests: 8 clients, one
// lock, a cell of 300 acquisitions (about half a second each here; each
// library hands the lock over through a retry sleep or a notice), enough
// for a lost handover to show. Counted, not timed: a one-second cell had
// no acquisition at all in a CI run (redis-py, the machine loaded by the
// suite beside it); a loaded machine now lengthens the cell, up to 30 s.
func handovers() plan.Overrides {
	limit := 30 * time.Second
	return plan.Overrides{Clients: []int{8}, Ops: 300, Duration: &limit}
}

// Issue 29's must-holds without faults: on baseline (8 clients, one lock,
// a TTL of 10 s far above the 1 ms hold) redis-py's Lock, node-redlock and
// sesame-redlock keep exclusion: no overlap, no lost update.
func TestLibrariesBaseline(t *testing.T) {
	t.Parallel() // on a redis-server of its own
	cells := runLibraries(t, "baseline", []string{"drv:redis-py", "drv:node-redlock", "drv:sesame-redlock"}, handovers())
	for name, c := range cells {
		if c.Acquisitions == 0 || c.Violations.Overlaps != 0 || c.Violations.LostUpdates != 0 {
			t.Errorf("%s: %d acquisitions, %d overlaps, %d lost updates; want acquisitions and neither", name,
				c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates)
		}
	}
}

// long-hold (holds twice the TTL, at longHold's scale): redis-py's Lock
// and node-redlock do not renew, so a waiter takes the expired lock while
// its holder works (overlaps); sesame-redlock's using() extends the lock
// while the routine runs and keeps it (none). Three seconds give each
// library holds past the TTL (each hold is 1.2 s, one at a time).
func TestLibrariesLongHold(t *testing.T) {
	t.Parallel()
	cells := runLibraries(t, "long-hold", []string{"drv:redis-py", "drv:node-redlock", "drv:sesame-redlock-using"}, longHold())
	for _, name := range []string{"drv:redis-py", "drv:node-redlock"} {
		if c := cells[name]; c.Violations.Overlaps == 0 {
			t.Errorf("%s: no overlap in %d acquisitions holding 1.2 s on a 600 ms TTL without renewal", name, c.Acquisitions)
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
	// The histogram keeps three significant digits: a validity just under
	// 600 ms reads back as up to 600,063 µs.
	for name, c := range cells {
		m := c.Margins
		if m == nil || m.Holds == 0 || m.ValidityLeftUS.P50 <= 0 || m.ValidityLeftUS.Max > 600_000*1.001 {
			t.Errorf("%s: margins %+v, want holds and validity left within the 600 ms TTL", name, m)
			continue
		}
		t.Logf("%s: validity left p50 %.0fµs, %d of %d holds late (p50 %.0fµs), %d notices", name,
			m.ValidityLeftUS.P50, m.LateHolds, m.Holds, m.LateUS.P50, m.Notices)
		if renews := name == "drv:sesame-redlock-using"; renews != (m.LateHolds == 0) {
			t.Errorf("%s: %d of %d holds late", name, m.LateHolds, m.Holds)
		}
	}
}

// A library with no default lease time (a Redlock's; python-redis-lock's
// renewing form) is told lockbench's default TTL when the run gives none,
// as lockbench's own redislock is: each cell runs, keeps exclusion and
// acquires, and its record and notes say the TTL it used and why. (Its
// driver refused init with ttl_ms 0 before: every cell failed.)
func TestLibrariesWithoutDefaultTTL(t *testing.T) {
	t.Parallel()
	ov := handovers()
	ov.Clients, ov.Ops = []int{4}, 100
	ov.Variants = []string{"drv:node-redlock", "drv:sesame-redlock", "drv:sesame-redlock-using", "drv:python-redis-lock-renew"}
	p, err := plan.Build(nil, runnertest.WithLibraryDrivers(t, ov))
	if err != nil {
		t.Fatal(err)
	}
	if p.TTL != 0 {
		t.Fatalf("the plan's TTL is %v: want none given", p.TTL)
	}
	cells := runnertest.RunChecked(t, p) // fails on a cell that could not run
	for _, variant := range ov.Variants {
		c := cells[variant]
		if c.Acquisitions == 0 || c.Violations.Overlaps != 0 || c.Violations.LostUpdates != 0 {
			t.Errorf("%s: %d acquisitions, %d overlaps, %d lost updates; want acquisitions and neither", variant,
				c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates)
		}
		if c.Driver == nil || c.Driver.TTL != variants.DefaultTTL {
			t.Errorf("%s: driver %+v, want it told lockbench's default TTL %v", variant, c.Driver, variants.DefaultTTL)
			continue
		}
		want := fmt.Sprintf("%s: ttl %v (lockbench's default: %s has none)", variant, variants.DefaultTTL, c.Driver.Name)
		if notes := render.Notes(&record.Record{Cells: []record.Cell{c}}); !slices.Contains(notes, want) {
			t.Errorf("%s: notes %q\nwant among them %q", variant, notes, want)
		}
	}
}
