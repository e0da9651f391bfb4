package runner_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/cpubudget"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// With ?cpu=0.2 a node's own INFO CPU counters stay within 0.22 of a core
// over a cell that saturates it; the same cell without the budget uses
// more, so the budget, not the load, held it.
func TestNodeCPUBudgetHolds(t *testing.T) {
	if _, err := cpubudget.New(0.2); err != nil {
		t.Skipf("no cgroup to write here: %v", err)
	}
	cell := plan.Plan{Variants: []string{"lua-release"}, Clients: []int{32},
		Workload: workloads.Spec{Keys: 4096, Duration: 2 * time.Second, Warmup: 200 * time.Millisecond}}
	for _, tc := range []struct {
		topology string
		held     bool
	}{{"local:single?cpu=0.2", true}, {"local:single", false}} {
		rec := runPlanOn(t, topologies.Spec{Name: tc.topology}, cell)
		c := rec.Cells[0]
		if c.Server == nil || c.ElapsedS <= 0 {
			t.Fatalf("%s: no server cost measured", tc.topology)
		}
		cores := c.Server.CPUSeconds / c.ElapsedS
		t.Logf("%s: %.3f of a core, %.0f acq/s", tc.topology, cores, c.ThroughputPerS)
		if tc.held && cores > 0.22 {
			t.Errorf("%s: the node used %.3f of a core, want at most 0.22", tc.topology, cores)
		}
		if !tc.held && cores <= 0.22 {
			t.Errorf("%s: the node used %.3f of a core without a budget, want more than 0.22 (the cell did not saturate it)", tc.topology, cores)
		}
		if b := rec.Topology.CPUBudget; tc.held && (b == nil || b.Share != 0.2 || b.Mechanism == "") || !tc.held && b != nil {
			t.Errorf("%s: the record's budget is %+v", tc.topology, b)
		}
	}
}
