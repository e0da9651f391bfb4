package capacity

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestPlanNodes(t *testing.T) {
	tests := []struct {
		name                       string
		target, cpuMicros, maxUtil float64
		wantPerNode                float64
		wantNodes                  int
	}{
		{"one node is plenty", 1000, 50, 0.7, 14000, 1},
		{"exact multiple needs no extra node", 28000, 50, 0.7, 14000, 2},
		{"just above a multiple", 28001, 50, 0.7, 14000, 3},
		{"full utilization", 100000, 10, 1, 100000, 1},
		{"many nodes", 1e6, 100, 0.5, 5000, 200},
		{"fractional cost", 250000, 2.5, 0.8, 320000, 1},
		{"tiny target still one node", 0.001, 100, 0.7, 7000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := PlanNodes(tt.target, tt.cpuMicros, tt.maxUtil)
			if err != nil {
				t.Fatalf("PlanNodes: %v", err)
			}
			if math.Abs(plan.PerNode-tt.wantPerNode) > 1e-9*tt.wantPerNode || plan.Nodes != tt.wantNodes {
				t.Errorf("PlanNodes(%v, %v, %v) = PerNode %v, Nodes %d; want %v, %d",
					tt.target, tt.cpuMicros, tt.maxUtil, plan.PerNode, plan.Nodes, tt.wantPerNode, tt.wantNodes)
			}
			if plan.TargetRate != tt.target || plan.CPUMicrosPerAcq != tt.cpuMicros || plan.MaxUtilization != tt.maxUtil {
				t.Errorf("plan %+v does not echo its inputs", plan)
			}
			for _, phrase := range []string{"one core per node", "spread evenly", "hash slots", "same contention per lock name", "network"} {
				if !strings.Contains(plan.Assumption, phrase) {
					t.Errorf("Assumption %q does not say %q", plan.Assumption, phrase)
				}
			}
		})
	}
}

func TestPlanNodesErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name                       string
		target, cpuMicros, maxUtil float64
	}{
		{"zero target", 0, 50, 0.7},
		{"negative target", -1, 50, 0.7},
		{"NaN target", nan, 50, 0.7},
		{"infinite target", inf, 50, 0.7},
		{"zero cost", 1000, 0, 0.7},
		{"negative cost", 1000, -5, 0.7},
		{"NaN cost", 1000, nan, 0.7},
		{"infinite cost", 1000, inf, 0.7},
		{"zero utilization", 1000, 50, 0},
		{"negative utilization", 1000, 50, -0.5},
		{"utilization above one", 1000, 50, 1.01},
		{"utilization as percent", 1000, 50, 70},
		{"NaN utilization", 1000, 50, nan},
		{"absurd node count", 1e300, 50, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := PlanNodes(tt.target, tt.cpuMicros, tt.maxUtil)
			if !errors.Is(err, ErrBadPlan) {
				t.Fatalf("PlanNodes(%v, %v, %v) error = %v, want ErrBadPlan", tt.target, tt.cpuMicros, tt.maxUtil, err)
			}
			if !strings.HasPrefix(err.Error(), "capacity: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}
