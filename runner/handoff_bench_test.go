package runner_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// BenchmarkHandoff compares how fast the lock passes from one holder to
// the next when waiters poll (lua-release, a try every 1 ms) and when a
// release wakes one (notify): 32 clients on one lock name, 1 ms holds, both
// variants in one run on one local redis-server, per client library. Each
// iteration is a whole run (2 s measured per variant, after 500 ms of
// warm-up); the metrics are the medians over the iterations of each
// variant's handoff p50 (µs from a holder leaving the critical section to
// the next one entering it), acquisitions per second and commands per
// acquisition. ns/op is the run's length and means nothing here.
func BenchmarkHandoff(b *testing.B) {
	hold, err := workloads.ParseDistribution("1ms")
	if err != nil {
		b.Fatal(err)
	}
	lockVariants := []string{"lua-release", "notify"}
	for _, lib := range clients.Names {
		b.Run(lib, func(b *testing.B) {
			figures := map[string][]float64{}
			for b.Loop() {
				rec, err := runner.Run(b.Context(), plan.Plan{
					Variants: lockVariants, Clients: []int{32}, Client: lib,
					Topology: topologies.Spec{Name: "local"},
					Workload: workloads.Spec{Keys: 1, Hold: hold, Duration: 2 * time.Second, Warmup: 500 * time.Millisecond},
				}, runner.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range rec.Cells {
					if c.Error != "" || c.Violations.Overlaps != 0 {
						b.Fatalf("%s: error %q, %d overlaps", c.Variant, c.Error, c.Violations.Overlaps)
					}
					figures[c.Variant+"-handoff-p50-us"] = append(figures[c.Variant+"-handoff-p50-us"], c.HandoffLatencyUS.P50)
					figures[c.Variant+"-acq/s"] = append(figures[c.Variant+"-acq/s"], float64(c.Acquisitions)/c.ElapsedS)
					figures[c.Variant+"-cmds/acq"] = append(figures[c.Variant+"-cmds/acq"], c.CommandsPerAcquisition)
				}
			}
			for unit, xs := range figures {
				b.ReportMetric(median(xs), unit)
			}
		})
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
