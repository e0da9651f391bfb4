package record_test

import (
	"math"
	"testing"

	"github.com/lockbench/lockbench/record"
)

// The prediction for N nodes is what one node serves at the one-node best
// step's cost, over the busiest master's share; the efficiency and the
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
	if math.Abs(two.PredictedPerS-0.15e6/12/0.5) > 1e-6 {
		t.Errorf("two nodes: predicted %v, want %v", two.PredictedPerS, 0.15e6/12/0.5)
	}
	// 64 clients × 0.5 = 32 per node: halfway (in log2) between the
	// one-node steps' 16 µs at 16 clients and 12 µs at 64.
	if math.Abs(two.MatchedCPUMicrosPerAcq-14) > 1e-9 || math.Abs(two.MatchedPredictedPerS-0.15e6/14/0.5) > 1e-6 {
		t.Errorf("two nodes at matched cost: %v µs, predicted %v", two.MatchedCPUMicrosPerAcq, two.MatchedPredictedPerS)
	}
	if math.Abs(two.Efficiency-0.75) > 1e-9 || math.Abs(two.Ratio-18000/two.PredictedPerS) > 1e-9 {
		t.Errorf("two nodes: efficiency %v, ratio %v", two.Efficiency, two.Ratio)
	}
}
