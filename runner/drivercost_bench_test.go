package runner_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/workloads"
)

var (
	costPairs    = flag.Int("cost-pairs", 7, "BenchmarkDriverCost: interleaved pairs of cells")
	costDuration = flag.Duration("cost-duration", 2*time.Second, "BenchmarkDriverCost: each cell's measured time")
)

// BenchmarkDriverCost measures what the protocol costs: the same lock,
// lua-release, in process and as drv:go-lua (lockbench's lua-release behind
// the reference driver, one process), 16 clients on 16 keys, no hold, on
// one local redis-server. The two run as interleaved pairs (one cell of
// each, their order alternating pair by pair, so that a drift of the
// machine falls on both); the metrics are the medians over the pairs of
// each one's throughput, of the pair's ratio drv/in-process (issue 28's
// target: at least 0.5), and of the p50 acquire latency the pipe adds
// (drv's p50 less lua-release's). The table of every pair is logged.
// ns/op is the whole series and means nothing here.
//
//	go test ./runner -run '^$' -bench DriverCost -benchtime 1x -v
func BenchmarkDriverCost(b *testing.B) {
	dir := drivertest.DriversDir(b)
	drivers, err := driver.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	ep := topotest.Endpoint(b)
	hold, err := workloads.ParseDistribution("0")
	if err != nil {
		b.Fatal(err)
	}
	cell := func(variant string) record.Cell {
		rec, err := runner.Run(b.Context(), plan.Plan{
			Variants: []string{variant}, Clients: []int{16}, Drivers: drivers,
			Topology: topologies.Spec{Targets: []string{"redis://" + ep.Addr}},
			Workload: workloads.Spec{Keys: 16, Hold: hold, Duration: *costDuration, Warmup: 500 * time.Millisecond},
		}, runner.Options{})
		if err != nil {
			b.Fatal(err)
		}
		c := rec.Cells[0]
		if c.Error != "" || c.Violations.Overlaps != 0 || c.Acquisitions == 0 {
			b.Fatalf("%s: error %q, %d overlaps, %d acquisitions", variant, c.Error, c.Violations.Overlaps, c.Acquisitions)
		}
		return c
	}
	var inProc, drv, ratios, added []float64
	for b.Loop() {
		table := []string{"pair  lua-release acq/s  p50 µs   drv:go-lua acq/s  p50 µs  library p50 µs   ratio  added p50 µs"}
		for i := range *costPairs {
			var lua, golua record.Cell
			if i%2 == 0 {
				lua, golua = cell("lua-release"), cell("drv:go-lua")
			} else {
				golua, lua = cell("drv:go-lua"), cell("lua-release")
			}
			ratio := golua.ThroughputPerS / lua.ThroughputPerS
			more := golua.AcquireLatencyUS.P50 - lua.AcquireLatencyUS.P50
			inProc, drv = append(inProc, lua.ThroughputPerS), append(drv, golua.ThroughputPerS)
			ratios, added = append(ratios, ratio), append(added, more)
			table = append(table, fmt.Sprintf("%4d  %17.0f  %6.0f   %16.0f  %6.0f  %14.0f   %5.2f  %12.0f", i+1, lua.ThroughputPerS,
				lua.AcquireLatencyUS.P50, golua.ThroughputPerS, golua.AcquireLatencyUS.P50, golua.Driver.LibraryAcquireUS.P50, ratio, more))
		}
		table = append(table, fmt.Sprintf("median %15.0f  %6s   %16.0f  %6s  %14s   %5.2f  %12.0f",
			record.Median(inProc), "", record.Median(drv), "", "", record.Median(ratios), record.Median(added)))
		b.Log("\n" + strings.Join(table, "\n"))
	}
	b.ReportMetric(record.Median(inProc), "lua-release-acq/s")
	b.ReportMetric(record.Median(drv), "drv-go-lua-acq/s")
	b.ReportMetric(record.Median(ratios), "ratio")
	b.ReportMetric(record.Median(added), "added-p50-µs")
	if r := record.Median(ratios); r < 0.5 {
		b.Errorf("drv:go-lua reaches %.2f× lua-release's throughput, below the target 0.5×", r)
	}
}
