package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// Repetitions run interleaved, each a cell of its own with its number.
func TestRepeatInterleaves(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release", "set-nx-ex"}, Clients: []int{4}, Repeat: 2,
		Workload: workloads.Spec{Keys: 1, Hold: dist(t, "100us"), Duration: 200 * time.Millisecond},
	})
	var got []string
	for _, c := range rec.Cells {
		got = append(got, c.Variant+"#"+string(rune('0'+c.Repetition)))
	}
	if want := "lua-release#1 set-nx-ex#1 lua-release#2 set-nx-ex#2"; strings.Join(got, " ") != want {
		t.Errorf("cells ran as %v, want %s", got, want)
	}
	if groups := record.Groups(rec); len(groups) != 2 || len(groups[0].Cells) != 2 {
		t.Errorf("%d groups, want 2 of 2 repetitions", len(groups))
	}
}

func sweepPlan(t *testing.T) plan.Plan {
	return plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{8}, Topology: topologies.Spec{Name: "local"},
		Workload: workloads.Spec{Keys: 16, Hold: dist(t, "0"), Duration: 300 * time.Millisecond, Warmup: 100 * time.Millisecond},
	}
}

func threshold(t *testing.T, text string) record.Threshold {
	t.Helper()
	th, err := record.ParseThreshold(text)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// A sweep within a lax SLO runs every step, fits the model and plans
// shards from the servers' CPU time.
func TestSweepClients(t *testing.T) {
	rec, err := runner.Sweep(context.Background(), sweepPlan(t), runner.SweepOptions{
		Clients: []int{1, 2, 4}, SLO: []record.Threshold{threshold(t, "acquire.p99<10s")}, Patience: 5, TargetRate: 100000,
	}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Sweep == nil || len(rec.Sweep.Variants) != 1 {
		t.Fatalf("sweep %+v, want one variant", rec.Sweep)
	}
	v := rec.Sweep.Variants[0]
	if len(v.Points) != 3 || len(rec.Cells) != 3 || v.Stop != "the last step ran" {
		t.Fatalf("%d points, %d cells, stop %q; want 3, 3 and the last step", len(v.Points), len(rec.Cells), v.Stop)
	}
	for i, p := range v.Points {
		if p.Clients != []int{1, 2, 4}[i] || p.ThroughputPerS <= 0 || !p.Within() {
			t.Errorf("point %d: %+v", i, p)
		}
	}
	if v.Best < 0 || v.USL == nil || v.USL.Lambda <= 0 {
		t.Errorf("best %d, fit %+v (%s); want a best step and a fit", v.Best, v.USL, v.FitError)
	}
	if v.Nodes == nil || v.Nodes.Nodes < 1 || v.Nodes.CPUMicrosPerAcq != v.Points[v.Best].CPUMicrosPerAcquisition {
		t.Errorf("node plan %+v (%s), want one from the best step's CPU per acquisition", v.Nodes, v.NodesError)
	}
}

// The first step that breaks the SLO is the last; no step within it means
// no node plan.
func TestSweepStopsAtSLO(t *testing.T) {
	rec, err := runner.Sweep(context.Background(), sweepPlan(t), runner.SweepOptions{
		Clients: []int{1, 2, 4}, SLO: []record.Threshold{threshold(t, "throughput>=1000000000")}, TargetRate: 100000,
	}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := rec.Sweep.Variants[0]
	if len(v.Points) != 1 || !strings.Contains(v.Stop, "SLO broken at 1 clients") || v.Best != -1 || v.Nodes != nil || v.NodesError == "" {
		t.Errorf("points %d, stop %q, best %d, nodes %+v %q; want one broken step and no plan", len(v.Points), v.Stop, v.Best, v.Nodes, v.NodesError)
	}
}

// A rate sweep offers each rate in an open loop.
func TestSweepRates(t *testing.T) {
	rec, err := runner.Sweep(context.Background(), sweepPlan(t), runner.SweepOptions{Rates: []float64{200, 400}}, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := rec.Sweep.Variants[0]
	if rec.Sweep.By != "rate" || len(v.Points) != 2 {
		t.Fatalf("by %s, %d points (stop %q); want rate and 2", rec.Sweep.By, len(v.Points), v.Stop)
	}
	for i, p := range v.Points {
		if want := []float64{200, 400}[i]; p.OfferedPerS < 0.8*want || p.OfferedPerS > 1.2*want || p.Clients != 8 {
			t.Errorf("step %d offered %.0f/s with %d clients, want about %.0f with 8", i, p.OfferedPerS, p.Clients, want)
		}
	}
}
