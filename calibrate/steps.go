package calibrate

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// calibrationSide is who sends a calibrate measurement's cycles.
type calibrationSide int

const (
	sideBenchmark calibrationSide = iota // redis-benchmark
	sideBare                             // a library's bare loop, no lockbench
	sideLockbench                        // lockbench's runner, set-nx-ex
)

func (s calibrationSide) String() string {
	switch s {
	case sideBenchmark:
		return "redis-benchmark"
	case sideBare:
		return "bare loop"
	}
	return "lockbench"
}

// calibrationStep is one measurement of a calibrate run.
type calibrationStep struct {
	pair    int // from 1
	side    calibrationSide
	library string // "" for redis-benchmark
}

// seriesKey names the samples of one side and library.
type seriesKey struct {
	side    calibrationSide
	library string
}

// calibrationSteps is the order of a calibrate run's measurements: pairs
// times redis-benchmark (when there is one), then for each library its
// bare loop and lockbench, back to back, so that a drift of the machine
// touches every side alike.
func calibrationSteps(pairs int, libraries []string, benchmark bool) []calibrationStep {
	var steps []calibrationStep
	for pair := 1; pair <= pairs; pair++ {
		if benchmark {
			steps = append(steps, calibrationStep{pair: pair, side: sideBenchmark})
		}
		for _, lib := range libraries {
			steps = append(steps, calibrationStep{pair, sideBare, lib}, calibrationStep{pair, sideLockbench, lib})
		}
	}
	return steps
}

// calibrationSample is one measurement. Latencies are in microseconds;
// cpuPerCycle is the CPU (user and system) of the process that sent the
// cycles, per cycle.
type calibrationSample struct {
	cyclesPerS     float64
	setP50, setP99 float64
	delP50, delP99 float64
	cpuPerCycle    time.Duration
}

// measurers take the measurements of each side.
type measurers struct {
	benchmark func(ctx context.Context) (calibrationSample, error)
	bare      func(ctx context.Context, library string) (calibrationSample, error)
	lockbench func(ctx context.Context, library string) (calibrationSample, error)
	// bareConns are the bare loops' clients, by library, closed by close.
	bareConns map[string]clients.Client
}

func (m *measurers) close() {
	for _, c := range m.bareConns {
		c.Close()
	}
}

// runCalibration takes the measurements of steps in their order and
// returns them by side and library, in the order taken.
func runCalibration(ctx context.Context, steps []calibrationStep, m *measurers, stderr io.Writer) (map[seriesKey][]calibrationSample, error) {
	samples := map[seriesKey][]calibrationSample{}
	for _, st := range steps {
		if st.side == sideBenchmark {
			fmt.Fprintf(stderr, "lockbench: calibrate: pair %d\n", st.pair)
		}
		var (
			s   calibrationSample
			err error
		)
		switch st.side {
		case sideBenchmark:
			s, err = m.benchmark(ctx)
		case sideBare:
			s, err = m.bare(ctx, st.library)
		default:
			s, err = m.lockbench(ctx, st.library)
		}
		if err != nil {
			return nil, err
		}
		key := seriesKey{st.side, st.library}
		samples[key] = append(samples[key], s)
	}
	return samples, nil
}

// measureBare runs the bare loop of the cycle on conn: no lockbench, the
// library's own calls.
func measureBare(ctx context.Context, conn clients.Client, library string, o Options) (calibrationSample, error) {
	// Its keys are shaped as lockbench's, a run's prefix, the cell's and
	// workloads.LockName's, and its tokens as long: both sides send
	// commands of the same length (8 bytes shorter keys had given the bare
	// loop 2-4 % more cycles/s).
	prefix := runner.KeyPrefix(runner.NewRunID()) + "c0:lock:"
	spec := BareSpec{Clients: o.Connections, Prefix: prefix,
		TTL: calibrateTTL, Release: BareDel, Warmup: o.Warmup, Duration: o.Duration}
	before := procfs.SelfCPU()
	out, err := BareLoop(ctx, conn, spec)
	cpu := procfs.SelfCPU() - before
	switch {
	case ctx.Err() != nil:
		return calibrationSample{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
	case err != nil:
		return calibrationSample{}, fmt.Errorf("calibrate: bare loop %s: %w", library, err)
	case out.Cycles == 0:
		return calibrationSample{}, fmt.Errorf("calibrate: bare loop %s: no cycle in %v", library, o.Duration)
	}
	return calibrationSample{cyclesPerS: out.PerSecond(), cpuPerCycle: cpu / time.Duration(out.Cycles+out.WarmupCycles)}, nil
}

// measureLockbench runs the lock cycle through lockbench's runner with
// library against the server at addr. Its CPU counts from the cell's
// start to the run's end, over every acquisition, warm-up included.
func measureLockbench(ctx context.Context, addr, library string, o Options) (calibrationSample, error) {
	p := plan.Plan{
		Variants: []string{calibrateVariant},
		Clients:  []int{o.Connections},
		Client:   library,
		Topology: topologies.Spec{Targets: []string{"redis://" + addr}},
		Workload: workloads.Spec{KeyPerClient: true, Hold: workloads.Fixed(0), Think: workloads.Fixed(0),
			Duration: o.Duration, Warmup: o.Warmup},
		TTL: calibrateTTL,
	}
	var atCell time.Duration
	rec, err := runner.Run(ctx, p, runner.Options{OnCell: func(runner.CellStart) { atCell = procfs.SelfCPU() }})
	cpu := procfs.SelfCPU() - atCell
	switch {
	case ctx.Err() != nil:
		return calibrationSample{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
	case err != nil:
		return calibrationSample{}, fmt.Errorf("calibrate: lockbench %s: %w", library, err)
	case len(rec.Cells) != 1:
		return calibrationSample{}, fmt.Errorf("calibrate: lockbench %s: %d cells, want 1", library, len(rec.Cells))
	}
	c := rec.Cells[0]
	switch {
	case c.Error != "":
		return calibrationSample{}, fmt.Errorf("calibrate: lockbench %s: %s", library, c.Error)
	case c.Errors > 0 || c.Timeouts > 0 || c.Acquisitions == 0:
		return calibrationSample{}, fmt.Errorf("calibrate: lockbench %s: %d acquisitions, %d errors, %d timeouts; the figures would mislead",
			library, c.Acquisitions, c.Errors, c.Timeouts)
	}
	return calibrationSample{
		cyclesPerS: c.ThroughputPerS, cpuPerCycle: cpu / time.Duration(c.Acquisitions+c.Warmup.Acquisitions),
		setP50: c.AcquireLatencyUS.P50, setP99: c.AcquireLatencyUS.P99,
		delP50: c.ReleaseLatencyUS.P50, delP99: c.ReleaseLatencyUS.P99,
	}, nil
}
