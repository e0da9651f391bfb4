package runner_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/runner/runnertest"
)

// A driver is a variant like any other: drv:go-lua, lua-release over the
// protocol in a process of its own, sits in the same run as lua-release,
// under the same oracle and porcupine: on baseline neither overlaps, on
// long-hold (the TTL shorter than the hold) both do, and porcupine's
// verdict agrees with the oracle on every cell. The record names the
// driver and keeps its library's own acquire times.
func TestDriverIsAVariant(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		duration time.Duration
		overlaps bool
	}{
		{"baseline", time.Second, false},
		{"long-hold", 1500 * time.Millisecond, true},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel() // each on a redis-server of its own
			cells := runnertest.RunChecked(t, runnertest.ScenarioPlan(t, tc.scenario, runnertest.WithDrivers(t, plan.Overrides{
				Variants: []string{"lua-release", "drv:go-lua"}, Duration: &tc.duration})))
			for _, c := range cells {
				if c.Acquisitions == 0 {
					t.Fatalf("%s: no acquisition", c.Variant)
				}
				if overlaps := c.Violations.Overlaps; (overlaps > 0) != tc.overlaps {
					t.Errorf("%s: %d overlaps, want overlaps: %v", c.Variant, overlaps, tc.overlaps)
				}
			}
			lua, drv := cells["lua-release"], cells["drv:go-lua"]
			if lua.Driver != nil {
				t.Errorf("lua-release has a driver: %+v", lua.Driver)
			}
			d := drv.Driver
			if d == nil || d.Name != "go-lua" || d.Library != "lockbench lua-release" || d.Version == "" || !strings.HasPrefix(d.Language, "go") ||
				d.Procs != 1 || strings.Join(d.Command, " ") != "./go-lua serve" {
				t.Fatalf("the driver cell's driver: %+v", d)
			}
			// go-lua reports took_us: the library's acquire is timed
			// apart from lockbench's, which adds the pipe.
			if d.LibraryAcquireUS.P50 <= 0 || d.LibraryAcquireUS.Max <= 0 {
				t.Errorf("the library's acquire times: %+v", d.LibraryAcquireUS)
			}
			// The client side's CPU over the measured phase: lockbench's
			// own (getrusage, exact) in both cells, the driver process's
			// (/proc, 10 ms steps) in the driver's: an acquisition costs
			// go-lua at least two requests' decoding and two commands, well
			// over 10 µs, so 5000 of them show.
			// (at most every core for the measured phase and the second
			// its last cycles may take to end: the test binary's other
			// parallel tests count in lockbench's process too)
			most := func(c record.Cell) float64 { return (c.ElapsedS + 1) * float64(runtime.NumCPU()) }
			for _, c := range []record.Cell{lua, drv} {
				if c.ClientCPUSeconds <= 0 || c.ClientCPUSeconds > most(c) {
					t.Errorf("%s: lockbench's CPU %.3f s over %.2f s measured", c.Variant, c.ClientCPUSeconds, c.ElapsedS)
				}
			}
			if d.CPUSeconds > most(drv) || d.CPUSeconds <= 0 && drv.Acquisitions >= 5000 {
				t.Errorf("the driver's CPU %.3f s over %.2f s measured, %d acquisitions", d.CPUSeconds, drv.ElapsedS, drv.Acquisitions)
			}
			// go-lua reports validity_ms: the margins come from it.
			if drv.Margins == nil || drv.Margins.Holds == 0 {
				t.Errorf("the driver cell's margins: %+v", drv.Margins)
			}
		})
	}
}

// Bad drivers fail their own cell, with the reason, and the run goes on:
// one that breaks the protocol mid-cell (its cell names the offending
// line), one that exits during init (the tail of its stderr), one that
// refuses what the plan asks (a semaphore of go-lua, a lock).
func TestBadDriversFailTheirCell(t *testing.T) {
	garbage := drivertest.Bad(t, "garbage")
	exits := drivertest.Bad(t, "exit-init")
	second := time.Second
	ov := runnertest.WithDrivers(t, plan.Overrides{
		Variants: []string{"drv:garbage", "drv:exits", "drv:go-lua"},
		Drivers:  []string{"garbage=" + strings.Join(garbage.Command, " "), "exits=" + strings.Join(exits.Command, " ")},
		Duration: &second, Clients: []int{4},
	})
	p, err := plan.Build(nil, ov)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Cells) != 3 {
		t.Fatalf("%d cells, want 3", len(rec.Cells))
	}
	for i, want := range []string{"broke the protocol", "exited during init", ""} {
		c := rec.Cells[i]
		switch {
		case want == "" && (c.Error != "" || c.Acquisitions == 0):
			t.Errorf("%s after the bad ones: error %q, %d acquisitions", c.Variant, c.Error, c.Acquisitions)
		case want != "" && !strings.Contains(c.Error, want):
			t.Errorf("%s: error %q, want it to say %q", c.Variant, c.Error, want)
		}
		t.Logf("%s: %s", c.Variant, c.Error)
	}
	if e := rec.Cells[0].Error; !strings.Contains(e, "this is not JSON") || !strings.Contains(e, "driver-1 pid ") {
		t.Errorf("the broken protocol's cell does not name the process and its line: %q", e)
	}
	if e := rec.Cells[1].Error; !strings.Contains(e, "ImportError") {
		t.Errorf("the cell of the driver that exited does not show its stderr: %q", e)
	}

	// go-lua is a lock: asked for a semaphore, it refuses init, and its
	// cell says why.
	two := 2
	p, err = plan.Build(nil, runnertest.WithDrivers(t, plan.Overrides{Variants: []string{"drv:go-lua"}, Limit: &two, Duration: &second, Clients: []int{2}}))
	if err != nil {
		t.Fatal(err)
	}
	rec, err = runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.Cells[0].Error; !strings.Contains(e, "refused init") || !strings.Contains(e, "semaphore") {
		t.Errorf("go-lua asked for a semaphore: cell error %q", e)
	}
}

// A driver that answers init and then no request: its cell has nothing
// to measure, and its record says how many requests each process left
// unanswered at the cell's end, which the table's notes say too.
func TestSilentDriverLeavesRequestsUnanswered(t *testing.T) {
	silent := drivertest.Bad(t, "silent")
	second, zero, procs := time.Second, time.Duration(0), 2
	p, err := plan.Build(nil, runnertest.WithDrivers(t, plan.Overrides{
		Variants: []string{"drv:mute"}, Drivers: []string{"mute=" + strings.Join(silent.Command, " ")},
		Duration: &second, Warmup: &zero, Clients: []int{2}, DriverProcs: &procs,
	}))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	if c.Error != "" || c.Acquisitions != 0 || c.Driver == nil {
		t.Fatalf("the silent driver's cell: error %q, %d acquisitions, driver %+v", c.Error, c.Acquisitions, c.Driver)
	}
	// Each client sent one acquire, which its process never answered.
	u := c.Driver.Unanswered
	if len(u) != 2 {
		t.Fatalf("unanswered %+v: want both processes", u)
	}
	for i, proc := range u {
		if proc.Process != i+1 || proc.PID <= 0 || proc.Requests != 1 || proc.ByOp["acquire"] != 1 || proc.Answered != 0 {
			t.Errorf("process %d: %+v, want driver-%d with its pid and 1 acquire unanswered, none answered", i+1, proc, i+1)
		}
	}
	want := fmt.Sprintf("drv:mute, 2 clients: 2 requests unanswered at the cell's end: driver-1 pid %d: 1 acquire (0 answered), "+
		"driver-2 pid %d: 1 acquire (0 answered)", u[0].PID, u[1].PID)
	if notes := render.Notes(rec); !slices.Contains(notes, want) {
		t.Errorf("notes %q\nwant among them %q", notes, want)
	}
}
