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

// The negative control: with no lock, the oracle must see violations.
func TestNoLockViolates(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"none"}, Clients: []int{16},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 300 * time.Millisecond},
	})
	v := rec.Cells[0].Violations
	if v.Overlaps == 0 || v.LostUpdates == 0 {
		t.Fatalf("none under contention: overlaps %d, lost updates %d; want both > 0", v.Overlaps, v.LostUpdates)
	}
	if v.MaxOccupancy < 2 {
		t.Fatalf("max occupancy %d, want >= 2", v.MaxOccupancy)
	}
}

// Without faults and with a TTL far above the hold time, every lock that
// runs on one Redis keeps mutual exclusion, on each client library it runs
// on, and leaves no key behind: the runner deletes the keys under the run's
// prefix, so a key left on the test's own server was written outside it.
func TestLocksExcludeWithoutFaults(t *testing.T) {
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			var locks []string
			for _, info := range variants.All() {
				if info.Kind == variants.KindLock && info.Supports(variants.ShapeSingle) && info.RunsOn(lib) {
					locks = append(locks, info.Name)
				}
			}
			ep := startRedis(t)
			rec := runPlanOn(t, topologies.Spec{Targets: []string{"redis://" + ep.Addr}}, plan.Plan{
				Variants: locks, Clients: []int{16}, Client: lib, TTL: 10 * time.Second,
				Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: time.Second, Warmup: 100 * time.Millisecond},
			})
			for _, c := range rec.Cells {
				// Enough handovers to judge exclusion by, not a rate: a
				// second's cell on a loaded machine (redislock fails fast
				// when the lock is held; 42 in 700 ms beside the
				// conformance suites' JVMs) makes well over 20.
				if c.Acquisitions < 20 {
					t.Errorf("%s: only %d acquisitions", c.Variant, c.Acquisitions)
				}
				if c.Violations.Overlaps != 0 || c.Violations.LostUpdates != 0 {
					t.Errorf("%s: overlaps %d, lost updates %d; want 0", c.Variant, c.Violations.Overlaps, c.Violations.LostUpdates)
				}
				if c.Errors != 0 || c.Violations.LeaseLost != 0 {
					t.Errorf("%s: errors %d, lease lost %d; want 0", c.Variant, c.Errors, c.Violations.LeaseLost)
				}
				if c.Client != lib || c.CommandsPerAcquisition < 2 {
					t.Errorf("%s: client %q, %.2f commands per acquisition", c.Variant, c.Client, c.CommandsPerAcquisition)
				}
			}
			if n := dbSize(t, ep, lib); n != 0 {
				t.Errorf("after the run the server holds %d keys; want 0 (a variant wrote outside the run's prefix)", n)
			}
		})
	}
}

// A cancelled context stops the run quickly and keeps what was measured.
func TestInterruptKeepsMeasurements(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := plan.Plan{
		Variants: []string{"lua-release", "watchdog"}, Clients: []int{4}, Topology: topologies.Spec{Name: "local"},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: time.Minute},
	}
	var started time.Time
	time.AfterFunc(700*time.Millisecond, func() { started = time.Now(); cancel() })
	rec, err := runner.Run(ctx, p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(started); took > 2*time.Second {
		t.Errorf("stopping took %v, want under 2s", took)
	}
	if !rec.Interrupted || len(rec.Cells) != 1 || !rec.Cells[0].Interrupted {
		t.Fatalf("interrupted %v, %d cells; want one interrupted cell", rec.Interrupted, len(rec.Cells))
	}
	if rec.Cells[0].Acquisitions == 0 || rec.Cells[0].ElapsedS <= 0 {
		t.Errorf("interrupted cell lost its measurements: %+v", rec.Cells[0])
	}
}

// DeleteKeys removes the run's keys and nothing else.
func TestDeleteKeysOnlyUnderPrefix(t *testing.T) {
	ep := startRedis(t)
	c, err := clients.New(context.Background(), ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	prefix := runner.KeyPrefix("t1")
	for _, k := range []string{prefix + "a", prefix + "b:c", "lockbench:t10:a", "other"} {
		if _, err := c.Do(ctx, cmd("SET", k, "v")); err != nil {
			t.Fatal(err)
		}
	}
	n, err := runner.DeleteKeys(ctx, c, prefix)
	if err != nil || n != 2 {
		t.Fatalf("deleted %d (%v), want 2", n, err)
	}
	for _, k := range []string{"lockbench:t10:a", "other"} {
		if v, _ := c.Do(ctx, cmd("GET", k)); v != "v" {
			t.Errorf("foreign key %s = %v after cleanup", k, v)
		}
	}
}

// Without redis-server on PATH the runner falls back to the embedded
// miniredis, and the record says its figures are not representative.
func TestEmbeddedFallback(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	p := plan.Plan{
		Variants: []string{"simple", "lua-release", "watchdog"}, Clients: []int{4},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 200 * time.Millisecond},
	}
	rec, err := runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Topology.Name != "embedded" || rec.Topology.Representative {
		t.Fatalf("topology %+v, want embedded and not representative", rec.Topology)
	}
	for _, c := range rec.Cells {
		if c.Error != "" || c.Acquisitions == 0 || c.Errors != 0 || c.Violations.Overlaps != 0 {
			t.Errorf("%s on miniredis: %d acquisitions, %d errors, %d overlaps, error %q", c.Variant, c.Acquisitions, c.Errors, c.Violations.Overlaps, c.Error)
		}
	}
}
