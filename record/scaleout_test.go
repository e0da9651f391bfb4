package record_test

import (
	"math"
	"testing"

	"github.com/lockbench/lockbench/record"
)

// The prediction for N nodes takes the one-node steps' cost at the
// clients the busiest node serves, over its share; the efficiency and the
// ratio follow.
func TestAnalyzeScaleOut(t *testing.T) {
	step := func(clients int, x, cpu, share float64) record.SweepPoint {
		return record.SweepPoint{Clients: clients, ThroughputPerS: x, CPUMicrosPerAcquisition: cpu, BusiestShare: share}
	}
	variants := []record.SweepVariant{
		{Variant: "v", Masters: 1, Best: 1, Points: []record.SweepPoint{step(16, 9000, 16, 1), step(64, 12000, 12, 1)}},
		{Variant: "v", Masters: 2, Best: 0, Points: []record.SweepPoint{step(64, 18000, 16, 0.5)}},
	}
	s := record.AnalyzeScaleOut(variants, 0.15, 0.7)
	if len(s) != 1 || len(s[0].Rows) != 2 {
		t.Fatalf("got %+v", s)
	}
	if got, want := s[0].PerNode, 0.15e6/12; math.Abs(got-want) > 1e-6 {
		t.Errorf("per node %v, want %v", got, want)
	}
	two := s[0].Rows[1]
	// 64 clients × 0.5 = 32 per node: halfway (in log2) between 16 µs and 12 µs.
	if math.Abs(two.PlanCPUMicrosPerAcq-14) > 1e-9 || math.Abs(two.PredictedPerS-0.15e6/14/0.5) > 1e-6 {
		t.Errorf("two nodes: plan %v µs, predicted %v", two.PlanCPUMicrosPerAcq, two.PredictedPerS)
	}
	if math.Abs(two.Efficiency-0.75) > 1e-9 || math.Abs(two.Ratio-18000/two.PredictedPerS) > 1e-9 {
		t.Errorf("two nodes: efficiency %v, ratio %v", two.Efficiency, two.Ratio)
	}
}
