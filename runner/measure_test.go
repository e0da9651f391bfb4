package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/workloads"
)

// An open loop keeps offering acquisitions through a 200 ms stall of the
// server; latency from the intended start shows the stall for every
// arrival it held up, latency from the actual start hides it
// (coordinated omission).
func TestOpenLoopCorrectsCoordinatedOmission(t *testing.T) {
	topotest.Faulted(t)
	// The fault schedule stalls the server 700 ms into the measured phase,
	// however late the cell starts on a loaded machine.
	stall, err := faults.Parse("at=700ms pause node=master for=200ms")
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{16}, Faults: []faults.Fault{stall},
		Topology: topologies.Spec{Name: "local"},
		Workload: workloads.Spec{Keys: 64, Rate: 2000, Duration: 2 * time.Second},
	}
	rec, err := runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	corrected, raw := c.AcquireLatencyUS, c.AcquireLatencyRawUS
	t.Logf("offered %.0f/s, achieved %.0f/s, dropped %d; corrected p99 %.0fµs max %.0fµs; raw p99 %.0fµs max %.0fµs; lateness p99 %.0fµs",
		c.OfferedPerS, c.ThroughputPerS, c.Dropped, corrected.P99, corrected.Max, raw.P99, raw.Max, c.LatenessUS.P99)
	// The longest wait is the stall less the time from its start to the
	// first arrival due in it (up to 0.5 ms at 2,000/s), plus the reply:
	// 199.3 ms was seen in CI.
	if corrected.Max < 190_000 {
		t.Errorf("corrected max %.0fµs; the 200ms stall must show (at least 190ms)", corrected.Max)
	}
	// About 400 of the 4,000 arrivals were due during the stall: from their
	// intended start they waited it out, so the corrected p99 shows it;
	// from their actual start (after it) they did not, so the raw p99 does
	// not. (A ratio of the two failed under CI load, where the raw p99
	// alone rose to 21 ms.)
	if corrected.P99 < 100_000 || raw.P99 > 50_000 {
		t.Errorf("corrected p99 %.0fµs, raw p99 %.0fµs; want the 200ms stall in the first (at least 100ms), not in the second (under 50ms)", corrected.P99, raw.P99)
	}
	if c.OfferedPerS < 1900 || c.OfferedPerS > 2100 {
		t.Errorf("offered %.0f/s, want 2000", c.OfferedPerS)
	}
	if len(c.Series) < 2 || c.Series[0].Acquisitions == 0 {
		t.Errorf("series %+v", c.Series)
	}
}

// Redis counts, per uncontended lua-release cycle, one SET and one EVALSHA
// sent by the client (matching the client-side count), plus the GET and DEL
// the script runs.
func TestServerCountsCommands(t *testing.T) {
	rec := runPlan(t, plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{8},
		Workload: workloads.Spec{KeyPerClient: true, Duration: 500 * time.Millisecond},
	})
	c := rec.Cells[0]
	if c.Server == nil {
		t.Fatal("no server cost in the record")
	}
	// The servers' counters are read while the clients run: cycles in
	// flight at either snapshot, and those sent while the snapshot
	// connects, blur the count by a few commands.
	n := c.Acquisitions
	slack := 2*8 + n/200
	by := c.Server.ByCommand
	sent := by["set"] + by["evalsha"] + by["eval"]
	t.Logf("%d acquisitions: server %v; client-side %d commands; %.1f µs Redis CPU per acquisition", n, by, c.Commands, c.Server.CPUMicrosPerAcquisition)
	for name, got := range map[string]int64{"set": by["set"], "evalsha+eval": by["evalsha"] + by["eval"], "get (in the script)": by["get"], "del (in the script)": by["del"]} {
		if got < n-slack || got > n+slack {
			t.Errorf("%s: %d calls for %d acquisitions", name, got, n)
		}
	}
	if d := sent - c.Commands; d < -slack || d > slack {
		t.Errorf("the server counted %d client commands, the clients sent %d", sent, c.Commands)
	}
	if c.Server.CPUMicrosPerAcquisition <= 0 || c.Server.AcquisitionsPerCore <= 0 {
		t.Errorf("server CPU %+v", c.Server)
	}
}
