package calibrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/install"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// DriverOptions say what lockbench calibrate --driver offers: a driver's
// bare loop (its library's own calls, driver.RunBare) and lockbench's
// drive of the same library (drv:NAME), on one server of calibrate's own.
// Zero is not a default: start from DefaultDriverOptions.
type DriverOptions struct {
	// Driver is the driver, NAME or NAME@VERSION (installed when it is
	// not), among Known; when Known is nil, among the drivers of Dir
	// (driver.DefaultDir when empty).
	Driver string
	Known  []driver.Manifest
	Dir    string
	// Clients is how many clients each side runs, a lock name each.
	// Default 8.
	Clients int
	// Duration and Warmup are each side's measured time and its warm-up
	// before it. Default 5s and AutoWarmup.
	Duration, Warmup time.Duration
	// Pairs is how many pairs of the two sides run, their order
	// alternating pair by pair. Default 5.
	Pairs int
	// Server is redis, valkey or a server binary's path. Default redis.
	Server string
	// Procs spreads lockbench's clients over this many driver processes
	// (--driver-procs); the bare loop is one process. Default
	// plan.AutoDriverProcs: a process per core for a Python driver, whose
	// GIL holds one process to about one core, as it holds the bare loop;
	// one for the others.
	Procs int
	// Log takes a line per step. Default none.
	Log io.Writer
}

// DefaultDriverOptions are the options of lockbench calibrate --driver
// without other flags.
func DefaultDriverOptions() DriverOptions {
	return DriverOptions{Clients: 8, Duration: 5 * time.Second, Warmup: AutoWarmup, Pairs: 5, Procs: plan.AutoDriverProcs}
}

// AutoWarmup as DriverOptions.Warmup is the driver's runtime's: 1s, and
// JVMWarmup for a Java driver.
const AutoWarmup time.Duration = -1

// JVMWarmup is the warm-up of a Java driver's sides: a JVM compiles the
// library's and the driver's code for seconds after it starts. Measured on
// ShedLock's bare loop, 7 December 2026 (perf record of the JVM): C2's
// compiler threads took 36% of the process's samples from 3 to 6 s after
// its start and 4% from 11 to 14 s; the bare loop made 7,589 cycles/s
// after a 1 s warm-up and 20,441 after 8 s.
const JVMWarmup = 10 * time.Second

// warmupFor is the warm-up o asks for m's sides.
func (o DriverOptions) warmupFor(m driver.Manifest) time.Duration {
	switch {
	case o.Warmup != AutoWarmup:
		return o.Warmup
	case m.Language == "java":
		return JVMWarmup
	}
	return time.Second
}

// driverSample is one pair's two sides.
type driverSample struct {
	bare driver.BareResult
	cell record.Cell
}

// The figures of a pair's sides: cycles/s; CPU per cycle (µs) of the bare
// loop's process, of lockbench's and of the driver's processes.
func (s driverSample) bareRate() float64 { return s.bare.PerSecond() }
func (s driverSample) rate() float64     { return s.cell.ThroughputPerS }
func (s driverSample) bareCPU() float64 {
	return perCycleUS(s.bare.CPU.Seconds(), s.bare.Cycles)
}
func (s driverSample) lockbenchCPU() float64 {
	return perCycleUS(s.cell.ClientCPUSeconds, s.cell.Acquisitions)
}
func (s driverSample) driverCPU() float64 {
	return perCycleUS(s.cell.Driver.CPUSeconds, s.cell.Acquisitions)
}
func (s driverSample) clientCPU() float64 { return s.lockbenchCPU() + s.driverCPU() }

func perCycleUS(seconds float64, cycles int64) float64 {
	if cycles <= 0 {
		return 0
	}
	return seconds * 1e6 / float64(cycles)
}

func (o DriverOptions) check() error {
	switch {
	case o.Clients < 1:
		return badf("--clients: must be at least 1 (got %d)", o.Clients)
	case o.Duration <= 0:
		return badf("--duration: must be a positive duration such as 5s or 500ms (got %v)", o.Duration)
	case o.Warmup < 0 && o.Warmup != AutoWarmup:
		return badf("--warmup: must be a duration of 0 or more such as 1s or 0 (got %v)", o.Warmup)
	case o.Pairs < 1:
		return badf("--pairs: must be at least 1 (got %d)", o.Pairs)
	case o.Procs != plan.AutoDriverProcs && (o.Procs < 1 || o.Procs > o.Clients):
		return badf("--driver-procs: must be auto or from 1 to --clients, %d (got %d)", o.Clients, o.Procs)
	}
	if _, err := topologies.ServerBinary(o.Server); err != nil {
		return badf("--server: %w", err)
	}
	return nil
}

// RunDriver starts one server and runs o.Pairs pairs of the driver's bare
// loop and lockbench's drive of it (drv:NAME), the same clients and lock
// cycle on each side (a lock name per client, no hold, the TTL
// calibrateTTL), the order alternating pair by pair; it returns each
// pair's figures and their medians (DriverSummary.Write prints them). A
// driver without a bare loop is bad input. The server is stopped on every
// way out.
func RunDriver(ctx context.Context, o DriverOptions) (sum DriverSummary, err error) {
	if err := o.check(); err != nil {
		return DriverSummary{}, err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Known == nil {
		if o.Known, err = driver.Known(cmp.Or(o.Dir, driver.DefaultDir()), nil); err != nil {
			return DriverSummary{}, err
		}
	}
	m, err := install.Find(ctx, o.Known, o.Driver, o.Log)
	if err != nil {
		return DriverSummary{}, err
	}
	if _, err := m.BareCommand(); err != nil {
		return DriverSummary{}, badf("--driver: %w; drivers with one: %s", err, strings.Join(bareDrivers(o.Known), ", "))
	}
	o.Warmup = o.warmupFor(m)
	serverPath, _ := topologies.ServerBinary(o.Server) // checked
	server, err := topologies.StartLocal(ctx, topologies.Spec{Name: "local", RedisServer: serverPath})
	if err != nil {
		return DriverSummary{}, fmt.Errorf("calibrate: %w", err)
	}
	defer func() {
		if cerr := server.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("calibrate: stop the server: %w", cerr))
		}
	}()
	access := server.Access()
	product, _ := topologies.Product(ctx, access.Endpoints[0])
	sum = DriverSummary{driver: m.Name, clients: o.Clients, procs: o.Procs, duration: o.Duration, warmup: o.Warmup,
		conditions: Conditions{Cores: runtime.NumCPU(), LoadStart: loadAverage(), LoadEnd: -1, ServerVersion: product}}
	for pair := 1; pair <= o.Pairs; pair++ {
		var s driverSample
		sides := []func() error{
			func() (err error) { s.bare, err = measureDriverBare(ctx, m, access, o, pair); return err },
			func() (err error) { s.cell, err = measureDriverRun(ctx, m, access, o, pair); return err },
		}
		if pair%2 == 0 { // lockbench first: a drift of the machine falls on both
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			if err := side(); err != nil {
				if ctx.Err() != nil {
					return DriverSummary{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
				}
				return DriverSummary{}, err
			}
		}
		sum.samples = append(sum.samples, s)
	}
	sum.conditions.LoadEnd = loadAverage()
	return sum, nil
}

// bareDrivers names the known drivers with a bare loop.
func bareDrivers(known []driver.Manifest) []string {
	var names []string
	for _, m := range known {
		if m.Bare != nil {
			names = append(names, m.Name)
		}
	}
	return names
}

// measureDriverBare runs m's bare loop against the server at access.
func measureDriverBare(ctx context.Context, m driver.Manifest, access topologies.Access, o DriverOptions, pair int) (driver.BareResult, error) {
	fmt.Fprintf(o.Log, "lockbench: calibrate: pair %d: bare loop of %s, %d clients, %v + %v warm-up\n", pair, m.Name, o.Clients, o.Duration, o.Warmup)
	cfg := driver.Config{Redis: driver.RedisOf(access), Prefix: runner.KeyPrefix(runner.NewRunID()), Clients: o.Clients, TTL: calibrateTTL}
	r, err := driver.RunBare(ctx, m, cfg, driver.BareLoad{Clients: o.Clients, Warmup: o.Warmup, Duration: o.Duration})
	if err != nil {
		return r, fmt.Errorf("calibrate: %w", err)
	}
	return r, nil
}

// measureDriverRun runs drv:NAME through lockbench's runner against the
// server at access: the bare loop's load.
func measureDriverRun(ctx context.Context, m driver.Manifest, access topologies.Access, o DriverOptions, pair int) (record.Cell, error) {
	fmt.Fprintf(o.Log, "lockbench: calibrate: pair %d: lockbench drv:%s, %d clients, %v + %v warm-up\n", pair, m.Name, o.Clients, o.Duration, o.Warmup)
	variant := "drv:" + m.Name
	p := plan.Plan{
		Variants:    []string{variant},
		Clients:     []int{o.Clients},
		Drivers:     []driver.Manifest{m},
		DriverProcs: o.Procs,
		Topology:    topologies.Spec{Targets: []string{"redis://" + access.Endpoints[0].Addr}},
		Workload: workloads.Spec{KeyPerClient: true, Hold: workloads.Fixed(0), Think: workloads.Fixed(0),
			Duration: o.Duration, Warmup: o.Warmup},
		TTL: calibrateTTL,
	}
	rec, err := runner.Run(ctx, p, runner.Options{})
	switch {
	case err != nil:
		return record.Cell{}, fmt.Errorf("calibrate: lockbench %s: %w", variant, err)
	case len(rec.Cells) != 1:
		return record.Cell{}, fmt.Errorf("calibrate: lockbench %s: %d cells, want 1", variant, len(rec.Cells))
	}
	c := rec.Cells[0]
	switch {
	case c.Error != "":
		return c, fmt.Errorf("calibrate: lockbench %s: %s", variant, c.Error)
	case c.Errors > 0 || c.Timeouts > 0 || c.Acquisitions == 0 || c.Driver == nil:
		return c, fmt.Errorf("calibrate: lockbench %s: %d acquisitions, %d errors, %d timeouts; the figures would mislead",
			variant, c.Acquisitions, c.Errors, c.Timeouts)
	}
	return c, nil
}
