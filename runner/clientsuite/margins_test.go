package clientsuite_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/workloads"
)

// When the work outlasts the TTL (long-hold: a 200 ms TTL, 400 ms holds),
// the holders of the locks without renewal stay in their critical sections
// for about 200 ms after their lease expired; the watchdog renews, and
// none of its holders is ever late.
func TestLongHoldLateTime(t *testing.T) {
	duration := 1500 * time.Millisecond
	p := scenarioPlan(t, "long-hold", plan.Overrides{Variants: []string{"set-nx-ex", "lua-release", "watchdog"}, Duration: &duration})
	rec, err := runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rec.Cells {
		m := c.Margins
		if c.Error != "" || m == nil {
			t.Fatalf("%s: no margins (error %q)", c.Variant, c.Error)
		}
		if m.TTLMS != 200 || m.Holds == 0 || m.ValidityLeftUS.Max > 200_000*1.001 {
			t.Errorf("%s: margins %+v, want a 200 ms TTL, holds, and at most 200 ms of validity left", c.Variant, m)
		}
		switch c.Variant {
		case "watchdog":
			if m.LateHolds != 0 || m.LateUS.Max != 0 {
				t.Errorf("watchdog: %d of %d holds late (max %.0fµs), want none", m.LateHolds, m.Holds, m.LateUS.Max)
			}
		default:
			// Every hold is late, by the hold less the TTL (less the
			// acquire's time), but those cut short by the end of the
			// cell: at most as many as were ever inside at once.
			inside := c.Violations.MaxOccupancy
			if m.LateHolds == 0 || m.LateHolds < m.Holds-inside || m.LateUS.P50 < 150_000 || m.LateUS.Max > 400_000 {
				t.Errorf("%s: %d of %d holds late, p50 %.0fµs max %.0fµs; want all but at most %d, by about 200 ms",
					c.Variant, m.LateHolds, m.Holds, m.LateUS.P50, m.LateUS.Max, inside)
			}
		}
	}
}

// An uncontended lua-release lock with a 10 s TTL has about all of its TTL
// left when its acquire returns: one round trip less (on loopback, well
// under a millisecond), within the histogram's resolution at 10 s (4 ms).
func TestUncontendedValidityLeft(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{1}, TTL: 10 * time.Second,
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: time.Second},
	})
	c := rec.Cells[0]
	m := c.Margins
	if m == nil || c.Acquisitions == 0 {
		t.Fatalf("no margins or acquisitions: %+v", c)
	}
	const ttlUS = 10_000_000
	left := m.ValidityLeftUS
	if left.P50 < ttlUS-5_000 || left.Max > ttlUS+4_100 || m.ExpiredAtAcquire != 0 || m.LateHolds != 0 {
		t.Errorf("validity left p50 %.0fµs max %.0fµs (%d expired, %d late holds); want within a few ms of %dµs",
			left.P50, left.Max, m.ExpiredAtAcquire, m.LateHolds, ttlUS)
	}
	if h, err := metrics.DecodeHistogram(c.Histograms.ValidityLeft); err != nil || h.TotalCount() < c.Acquisitions {
		t.Errorf("validity-left histogram: %v, %d values for %d acquisitions", err, h.TotalCount(), c.Acquisitions)
	}
	// The none control does not expire: no margins.
	if rec := runPlan(t, plan.Plan{Variants: []string{"none", "simple"}, Clients: []int{1}, Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 200 * time.Millisecond}}); rec.Cells[0].Margins != nil || rec.Cells[1].Margins != nil {
		t.Errorf("margins for locks that do not expire: %+v, %+v", rec.Cells[0].Margins, rec.Cells[1].Margins)
	}
}

// A watchdog holder frozen for 1 s (holder-pause: its renewals freeze
// too) outlives its 300 ms lease: its hold is late by most of the pause,
// and when it thaws, the renewal that fails tells it, about 700 ms after
// the lease expired (the pause less the TTL, plus up to one renewal
// interval).
func TestWatchdogLossNotice(t *testing.T) {
	duration := 2 * time.Second
	p := scenarioPlan(t, "holder-pause", plan.Overrides{Variants: []string{"watchdog"}, Duration: &duration})
	rec, err := runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	m := c.Margins
	if c.Error != "" || m == nil {
		t.Fatalf("no margins (error %q)", c.Error)
	}
	if m.LateHolds < 1 || m.LateUS.Max < 500_000 || m.LateUS.Max > 1_200_000 {
		t.Errorf("%d late holds, longest %.0fµs late; want the paused one, about 700 ms late", m.LateHolds, m.LateUS.Max)
	}
	if m.Notices < 1 || m.LateNotices < 1 || m.LossNoticeUS.Max < 500_000 || m.LossNoticeUS.Max > 1_200_000 {
		t.Errorf("%d notices (%d late), longest %.0fµs after the expiry; want the paused holder told about 700 ms late",
			m.Notices, m.LateNotices, m.LossNoticeUS.Max)
	}
}
