package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

var semaphores = []string{"sem-basic", "sem-fair", "sem-locked"}

// 32 clients contend for 5 permits: the lock-guarded semaphore never admits
// a sixth holder, and every semaphore reports its busy failures.
func TestSemaphoresUnderContention(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: semaphores, Clients: []int{32}, Limit: 5,
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "2ms"), Duration: time.Second},
	})
	for _, c := range rec.Cells {
		t.Logf("%s: %.0f acq/s, busy %d, max occupancy %d/5, overlaps %d", c.Variant, c.ThroughputPerS, c.FailedAttempts, c.Violations.MaxOccupancy, c.Violations.Overlaps)
		if c.Acquisitions == 0 || c.FailedAttempts == 0 || c.ThroughputPerS <= 0 {
			t.Errorf("%s: %d acquisitions, %d busy; want both > 0", c.Variant, c.Acquisitions, c.FailedAttempts)
		}
		if c.Errors != 0 || c.Timeouts != 0 || c.Limit != 5 {
			t.Errorf("%s: %d errors, %d timeouts, limit %d", c.Variant, c.Errors, c.Timeouts, c.Limit)
		}
	}
	locked := cellOf(t, rec, "sem-locked")
	if locked.Violations.Overlaps != 0 || locked.Violations.MaxOccupancy > 5 {
		t.Errorf("sem-locked: %d overlaps, max occupancy %d; want 0 and <= 5", locked.Violations.Overlaps, locked.Violations.MaxOccupancy)
	}
	if locked.Violations.MaxOccupancy < 2 {
		t.Errorf("sem-locked: max occupancy %d; 32 clients should fill several permits", locked.Violations.MaxOccupancy)
	}
}

// Clients with clocks up to 2 s apart: the basic semaphore lets clients
// with slow clocks take permits that are not free, as Redis in Action §6.3.1
// predicts.
func TestSkewedClocksBreakBasicSemaphore(t *testing.T) {
	skew, err := workloads.ParseSkew("uniform:-2s..2s")
	if err != nil {
		t.Fatal(err)
	}
	rec := runPlan(t, plan.Plan{
		Variants: semaphores, Clients: []int{32}, Limit: 5, TTL: 10 * time.Second,
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "2ms"), Duration: time.Second, Clocks: workloads.Clocks{Skew: skew}},
	})
	for _, c := range rec.Cells {
		t.Logf("skew ±2s: %s: %.0f acq/s, busy %d, max occupancy %d/5, overlaps %d, time over limit %.1fms",
			c.Variant, c.ThroughputPerS, c.FailedAttempts, c.Violations.MaxOccupancy, c.Violations.Overlaps, c.Violations.TimeOverLimitMS)
		if len(c.ClockOffsetsMS) != 32 {
			t.Errorf("%s: the record has %d clock offsets, want 32", c.Variant, len(c.ClockOffsetsMS))
		}
	}
	if basic := cellOf(t, rec, "sem-basic"); basic.Violations.Overlaps == 0 {
		t.Errorf("sem-basic with clocks ±2s apart: no overlaps")
	}
	if locked := cellOf(t, rec, "sem-locked"); locked.Violations.Overlaps != 0 {
		t.Errorf("sem-locked with clocks ±2s apart: %d overlaps", locked.Violations.Overlaps)
	}
	if rec.Config.Workload.Clocks.Skew != skew.String() {
		t.Errorf("the record does not state the skew: %+v", rec.Config.Workload.Clocks)
	}
}

// A run on a server lockbench did not start leaves no key of its own
// behind, the semaphores' counters included, and touches no other key.
func TestRunLeavesNoKeys(t *testing.T) {
	t.Parallel() // counted, not timed: on a server of its own beside the other parallel tests
	ep := startRedis(t)
	c, err := clients.New(context.Background(), ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Do(ctx, cmd("SET", "foreign", "keep")); err != nil {
		t.Fatal(err)
	}
	p := plan.Plan{
		Variants: append([]string{"simple", "watchdog"}, semaphores...), Clients: []int{4}, Limit: 1,
		Topology: topologies.Spec{Targets: []string{"redis://" + ep.Addr}},
		Workload: workloads.Spec{Keys: 3, Hold: dist(t, "1ms"), Duration: 200 * time.Millisecond},
	}
	if _, err := runner.Run(ctx, p, runner.Options{}); err != nil {
		t.Fatal(err)
	}
	reply, err := c.Do(ctx, variants.Bare("KEYS", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if keys := reply.([]any); len(keys) != 1 || keys[0] != "foreign" {
		t.Errorf("keys after the run: %v; want only the foreign key", keys)
	}
}
