package runner_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/cpubudget"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// With ?cpu=0.2 a node's own INFO CPU counters stay within 0.22 of a core
// over a cell that saturates it; the same cell without the budget uses
// more, so the budget, not the load, held it. On a machine others load,
// an unheld node gets only its turn of the cores: the cell without the
// budget is tried up to three times, the most it used counting.
func TestNodeCPUBudgetHolds(t *testing.T) {
	if _, err := cpubudget.New(0.2); err != nil {
		t.Skipf("no cgroup to write here: %v", err)
	}
	cell := plan.Plan{Variants: []string{"lua-release"}, Clients: []int{64},
		Workload: workloads.Spec{Keys: 4096, Duration: 2 * time.Second, Warmup: 200 * time.Millisecond}}
	cores := func(topology string) (float64, *record.Record) {
		rec := runPlanOn(t, topologies.Spec{Name: topology}, cell)
		c := rec.Cells[0]
		if c.Server == nil || c.ElapsedS <= 0 {
			t.Fatalf("%s: no server cost measured", topology)
		}
		used := c.Server.CPUSeconds / c.ElapsedS
		t.Logf("%s: %.3f of a core, %.0f acq/s", topology, used, c.ThroughputPerS)
		return used, rec
	}
	held, rec := cores("local:single?cpu=0.2")
	if held > 0.22 {
		t.Errorf("held to 0.2: the node used %.3f of a core, want at most 0.22", held)
	}
	if b := rec.Topology.CPUBudget; b == nil || b.Share != 0.2 || b.Mechanism == "" {
		t.Errorf("the record's budget is %+v, want 0.2 and its mechanism", b)
	}
	most := 0.0
	for range 3 {
		used, rec := cores("local:single")
		if rec.Topology.CPUBudget != nil {
			t.Errorf("without a budget the record says %+v", rec.Topology.CPUBudget)
		}
		if most = max(most, used); most > 0.22 {
			break
		}
	}
	// Whether the same cell takes more than 0.22 of a core without the
	// budget depends on the machine having it to give: under .ci/run's
	// load the load generator drove an unheld node to 0.115-0.131 only.
	// Then the contrast says nothing about the budget, and the held cell's
	// bound above is what was tested.
	if most <= 0.22 {
		t.Skipf("without a budget the node used at most %.3f of a core: the machine could not saturate it, so the contrast is not measured", most)
	}
}
