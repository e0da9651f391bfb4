package faultsuite_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner/runnertest"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// processName is how a driver cell's fault event names its process.
var processName = regexp.MustCompile(`^driver-[1-4] pid [0-9]+$`)

// runDriverScenario runs the built-in scenario with lua-release and
// drv:go-lua, its clients spread over 4 driver processes (one each), its
// histories checked, and returns the driver's cell after checking that
// porcupine agrees with the oracle on both cells.
func runDriverScenario(t *testing.T, scenario string, duration time.Duration) record.Cell {
	t.Helper()
	procs := 4
	drv := runnertest.RunChecked(t, scenarioPlan(t, scenario, runnertest.WithDrivers(t, plan.Overrides{
		Variants: []string{"lua-release", "drv:go-lua"}, Duration: &duration, DriverProcs: &procs})))["drv:go-lua"]
	t.Logf("drv:go-lua: faults %+v", drv.Faults)
	if drv.Driver == nil || drv.Driver.Procs != 4 {
		t.Fatalf("the driver cell's driver: %+v", drv.Driver)
	}
	return drv
}

// holder-pause on a driver cell stops the holder's process (SIGSTOP) for
// longer than the TTL: a client of another process takes the expired lock
// while the paused holder is still inside. The fault event names the
// paused process.
func TestDriverHolderPauseStopsItsProcess(t *testing.T) {
	topotest.Faulted(t)
	t.Parallel()
	drv := runDriverScenario(t, "holder-pause", 2*time.Second)
	if drv.Violations.Overlaps == 0 {
		t.Errorf("drv:go-lua paused for 1s with a TTL of 300ms: no overlap")
	}
	if len(drv.Faults) != 1 || drv.Faults[0].Action != "holder-pause" || !processName.MatchString(drv.Faults[0].Node) {
		t.Errorf("fault events %+v, want one holder-pause naming its driver process", drv.Faults)
	}
}

// holder-crash on a driver cell kills the holder's process (SIGKILL): its
// lock is orphaned and comes back after about one TTL (500ms), to a client
// of another process.
func TestDriverHolderCrashKillsItsProcess(t *testing.T) {
	topotest.Faulted(t)
	t.Parallel()
	drv := runDriverScenario(t, "holder-crash", 1500*time.Millisecond)
	ttlMS := 500.0
	if u := drv.Violations.LongestUnavailableMS; u < 0.8*ttlMS || u > 1.3*ttlMS {
		t.Errorf("max unavail %.0fms, want about one TTL (%.0fms: 0.8-1.3 of it)", u, ttlMS)
	}
	if drv.Violations.Crashed != 1 || drv.Violations.Overlaps != 0 {
		t.Errorf("crashed %d (want 1: one client per process), overlaps %d", drv.Violations.Crashed, drv.Violations.Overlaps)
	}
	if len(drv.Faults) != 1 || drv.Faults[0].Action != "holder-crash" || !processName.MatchString(drv.Faults[0].Node) {
		t.Errorf("fault events %+v, want one holder-crash naming its driver process", drv.Faults)
	}
}

// A network fault covers a driver's connections as it covers lockbench's
// own clients': the driver is given the proxies' addresses, so 100 ms of
// latency to the master (each way) shows in its acquires as it does in
// lua-release's.
func TestDriverBehindTheNetworkFaults(t *testing.T) {
	topotest.Faulted(t)
	t.Parallel()
	duration, keys, hold := 2*time.Second, 4, "1ms"
	p := scenarioPlan(t, "baseline", runnertest.WithDrivers(t, plan.Overrides{
		Variants: []string{"lua-release", "drv:go-lua"}, Duration: &duration, Keys: &keys, Hold: &hold, Clients: []int{4},
		Faults: []string{"at=500ms latency node=master latency=100ms for=1s"}}))
	rec := runPlan(t, p)
	for _, c := range rec.Cells {
		t.Logf("%s: acquire p50 %.0fµs max %.0fµs, %d acquisitions, %d errors", c.Variant, c.AcquireLatencyUS.P50, c.AcquireLatencyUS.Max, c.Acquisitions, c.Errors)
		if c.AcquireLatencyUS.Max < 150_000 || c.Acquisitions == 0 || c.Violations.Overlaps != 0 {
			t.Errorf("%s: slowest acquire %.0fµs (want the 100ms each way to show), %d acquisitions, %d overlaps",
				c.Variant, c.AcquireLatencyUS.Max, c.Acquisitions, c.Violations.Overlaps)
		}
	}
}
