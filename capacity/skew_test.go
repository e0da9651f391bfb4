package capacity_test

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/capacity"
)

// A skewed spread needs more nodes than an even one for the same rate:
// the busiest node, skew times the mean, is held to the utilization.
func TestPlanNodesSkewed(t *testing.T) {
	even, err := capacity.PlanNodesSkewed(100000, 10, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	skewed, err := capacity.PlanNodesSkewed(100000, 10, 0.5, 1.8)
	if err != nil {
		t.Fatal(err)
	}
	if even.Nodes != 2 || skewed.Nodes != 4 || skewed.Skew != 1.8 || even.Skew != 0 {
		t.Errorf("even %d nodes (skew %v), skewed %d (skew %v); want 2 and 4", even.Nodes, even.Skew, skewed.Nodes, skewed.Skew)
	}
	if !strings.Contains(skewed.Assumption, "busiest node carries 1.80×") || strings.Contains(even.Assumption, "busiest") {
		t.Errorf("assumptions: %q / %q", even.Assumption, skewed.Assumption)
	}
	if p, _ := capacity.PlanNodesSkewed(100000, 10, 0.5, 0.5); p.Nodes != 2 {
		t.Errorf("a skew under 1 (noise) planned %d nodes, want the even plan's 2", p.Nodes)
	}
}
