package faultsuite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// A pause of the master stalls the run for its length and is recorded with
// its time; the next cell gets a fresh topology.
func TestPauseFault(t *testing.T) {
	topotest.Faulted(t)
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release", "watchdog"}, Clients: []int{4},
		Faults:   []faults.Fault{mustFault(t, "at=500ms pause node=master for=400ms")},
		Workload: workloads.Spec{Keys: 4, Hold: dist(t, "1ms"), Duration: 1500 * time.Millisecond},
	})
	for _, c := range rec.Cells {
		if len(c.Faults) != 2 || c.Faults[0].Action != "pause" || c.Faults[1].Action != "resume" || c.Faults[0].Error != "" {
			t.Fatalf("%s: fault events %+v", c.Variant, c.Faults)
		}
		if at := c.Faults[0].AtS; at < 0.45 || at > 0.7 {
			t.Errorf("%s: pause at %.2fs, want 0.5s", c.Variant, at)
		}
		if took := c.Faults[1].AtS - c.Faults[0].AtS; took < 0.35 || took > 0.6 {
			t.Errorf("%s: paused for %.2fs, want 0.4s", c.Variant, took)
		}
		// The pause stalls whatever command was in flight: an acquire, or —
		// as likely with 4 clients on 4 names, mostly holding or releasing —
		// only releases.
		stalled := max(c.AcquireLatencyUS.Max, c.ReleaseLatencyUS.Max)
		if stalled < 300_000 || c.Acquisitions == 0 || c.Violations.Overlaps != 0 {
			t.Errorf("%s: longest acquire or release %.0fµs (want the pause to show), %d acquisitions, %d overlaps",
				c.Variant, stalled, c.Acquisitions, c.Violations.Overlaps)
		}
	}
}

// Redlock keeps acquiring while a minority of its masters is killed one
// after the other, and never lets two holders in. With a bare majority
// alive every live node must agree: a lock fragment left on one live node
// (a SET that outlived its per-node timeout on a loaded machine) blocks
// everyone until it expires — seen in CI with the 10 s default TTL — so
// the test runs a 300 ms TTL, and clients back off like redsync's.
func TestKillFaultsOnRedlock(t *testing.T) {
	topotest.Faulted(t)
	rec, err := runner.Run(context.Background(), plan.Plan{
		Variants: []string{"redlock"}, Clients: []int{8},
		Topology: topologies.Spec{Name: "local:redlock?nodes=5"},
		Retry:    variants.RetryPolicy{Kind: variants.RetryRand, Min: 20 * time.Millisecond, Max: 200 * time.Millisecond},
		TTL:      300 * time.Millisecond,
		Faults:   []faults.Fault{mustFault(t, "at=300ms kill node=node-1"), mustFault(t, "at=600ms kill node=node-2")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 2 * time.Second},
	}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	if len(c.Faults) != 2 || c.Faults[0].Node != "node-1" || c.Faults[1].Node != "node-2" {
		t.Fatalf("fault events %+v", c.Faults)
	}
	late := int64(0)
	for _, s := range c.Series[1:] { // from the second second: after both kills
		late += s.Acquisitions
	}
	if c.Violations.Overlaps != 0 || late == 0 {
		t.Errorf("%d overlaps, %d acquisitions after both kills (%d tries, %d errors)", c.Violations.Overlaps, late, c.Attempts, c.Errors)
	}
}

// Faults are refused on servers lockbench did not start, and on nodes a
// topology does not have.
func TestFaultsRefused(t *testing.T) {
	ep := startRedis(t)
	for name, p := range map[string]plan.Plan{
		"external": {Topology: topologies.Spec{Targets: []string{"redis://" + ep.Addr}}, Faults: []faults.Fault{mustFault(t, "at=100ms kill node=master-1")}},
		"no node":  {Topology: topologies.Spec{Name: "local"}, Faults: []faults.Fault{mustFault(t, "at=100ms kill node=replica-1")}},
	} {
		p.Variants, p.Clients = []string{"lua-release"}, []int{1}
		p.Workload = workloads.Spec{Duration: 300 * time.Millisecond}
		if _, err := runner.Run(context.Background(), p, runner.Options{}); err == nil {
			t.Errorf("%s: the run went ahead", name)
		} else if !errors.Is(err, faults.ErrBadFault) {
			t.Errorf("%s: %v; want ErrBadFault", name, err)
		}
	}
}

// failover: the replica of local:replicated is promoted mid-run. The run
// records the event and what it measured; the overlaps depend on timing,
// so only the record's completeness is asserted.
func TestFailoverFault(t *testing.T) {
	topotest.Faulted(t)
	rec, err := runner.Run(context.Background(), plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{4},
		Topology: topologies.Spec{Name: "local:replicated?replicas=1"},
		Faults:   []faults.Fault{mustFault(t, "at=500ms failover node=replica-1")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 1500 * time.Millisecond},
	}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	if len(c.Faults) != 1 || c.Faults[0].Action != "failover" || c.Faults[0].Error != "" {
		t.Fatalf("fault events %+v", c.Faults)
	}
	if c.Acquisitions == 0 || len(c.Series) == 0 || c.Histograms.Acquire == "" {
		t.Errorf("incomplete record: %d acquisitions, %d seconds", c.Acquisitions, len(c.Series))
	}
	t.Logf("failover at %.2fs: %d acquisitions, %d overlaps, %d errors", c.Faults[0].AtS, c.Acquisitions, c.Violations.Overlaps, c.Errors)
}

// Network faults go through a proxy in front of each node: a partition of
// 2 of 5 Redlock masters leaves a majority, a latency fault slows every
// command of its node, and both are undone at their end.
func TestNetworkFaults(t *testing.T) {
	topotest.Faulted(t)
	rec, err := runner.Run(context.Background(), plan.Plan{
		Variants: []string{"redlock"}, Clients: []int{4},
		Topology: topologies.Spec{Name: "local:redlock?nodes=5"},
		Faults: []faults.Fault{mustFault(t, "at=300ms partition node=node-1 for=600ms"), mustFault(t, "at=300ms partition node=node-2"),
			mustFault(t, "at=300ms latency node=node-3 latency=20ms for=600ms")},
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 1500 * time.Millisecond},
	}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	actions := map[string]int{}
	for _, e := range c.Faults {
		if e.Error != "" {
			t.Errorf("fault event %+v", e)
		}
		actions[e.Action]++
	}
	if actions["partition"] != 2 || actions["latency"] != 1 || actions["heal"] != 3 {
		t.Errorf("fault events %+v", c.Faults)
	}
	// While node-1 and node-2 are cut, a majority needs the slowed node-3.
	if c.Violations.Overlaps != 0 || c.Acquisitions == 0 || c.AcquireLatencyUS.Max < 20_000 {
		t.Errorf("%d overlaps, %d acquisitions, acquire max %.0fµs", c.Violations.Overlaps, c.Acquisitions, c.AcquireLatencyUS.Max)
	}
}

// On a cluster the nodes announce the fronts of their links, so that the
// clients, led to the nodes by the cluster itself, go through the proxies
// too: latency between the clients and every master slows every
// acquisition, and is undone at its end.
func TestNetworkFaultsOnCluster(t *testing.T) {
	topotest.Faulted(t)
	rec, err := runner.Run(context.Background(), plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{2},
		Topology: topologies.Spec{Name: "local:cluster?masters=3"},
		Faults:   []faults.Fault{mustFault(t, "at=100ms latency sides=masters|clients latency=10ms for=300ms")},
		Workload: workloads.Spec{Hold: dist(t, "1ms"), Duration: 600 * time.Millisecond},
	}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	if len(c.Faults) != 2 || c.Faults[0].Action != "latency" || c.Faults[1].Action != "heal" || c.Faults[0].Error != "" {
		t.Fatalf("fault events %+v", c.Faults)
	}
	// A SET NX and its reply cross the link both ways: 2 × 10 ms at least.
	if c.AcquireLatencyUS.Max < 20_000 || c.AcquireLatencyUS.P50 >= 20_000 || c.Violations.Overlaps != 0 {
		t.Errorf("acquire p50 %.0fµs, max %.0fµs (want the latency in the max only), %d overlaps",
			c.AcquireLatencyUS.P50, c.AcquireLatencyUS.Max, c.Violations.Overlaps)
	}
}

// A reset drops the clients' connections to the node while it lasts (each
// is reset as it next carries a command), which the record counts as
// connection errors by kind; after the heal both client libraries
// connect again and acquire. An acquire whose SET reached Redis but whose
// reply the reset dropped failed for its client and left the lock held
// on the server until its TTL (with lockbench's default 10 s TTL, every
// lock of this cell stayed taken to its end in most runs): the TTL here
// is short, so that the locks come back within the cell.
func TestResetFault(t *testing.T) {
	topotest.Faulted(t)
	for _, lib := range []string{"rueidis", "go-redis"} {
		t.Run(lib, func(t *testing.T) {
			rec, err := runner.Run(context.Background(), plan.Plan{
				Variants: []string{"lua-release"}, Clients: []int{4}, Client: lib, TTL: 300 * time.Millisecond,
				Faults:   []faults.Fault{mustFault(t, "at=500ms reset node=master for=500ms")},
				Workload: workloads.Spec{Keys: 4, Hold: dist(t, "1ms"), Duration: 2500 * time.Millisecond},
			}, runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := rec.Cells[0]
			if a := actions(t, c); a["reset"] != 1 || a["heal"] != 1 {
				t.Errorf("fault events %+v", c.Faults)
			}
			dropped := c.ErrorsByKind[workloads.ErrorKindReset].Count + c.ErrorsByKind[workloads.ErrorKindEOF].Count
			if dropped == 0 {
				t.Errorf("no connection reset or EOF among the errors %+v", c.ErrorsByKind)
			}
			if len(c.Series) < 3 || c.Series[2].Acquisitions == 0 {
				t.Fatalf("no acquisition a second after the heal: %+v", c.Series)
			}
			t.Logf("%d acquisitions, %d errors %+v, per second %d/%d/%d, longest unavailable %.0f ms", c.Acquisitions, c.Errors,
				c.ErrorsByKind, c.Series[0].Acquisitions, c.Series[1].Acquisitions, c.Series[2].Acquisitions, c.Violations.LongestUnavailableMS)
		})
	}
}
