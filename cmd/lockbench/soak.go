package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
)

// soakOptions are the flags of lockbench soak.
type soakOptions struct {
	duration time.Duration // how long the soak runs; default 5m
	interval time.Duration // how often it prints a sample; default 1m
	targets  []string      // existing servers; default none: a local redis-server of its own
}

// soakWorkload is the mixed workload soak runs round-robin: short plans,
// each with soakCommon.
var soakWorkload = []plan.Overrides{
	{Variants: []string{"lua-release", "watchdog"}, Clients: []int{16}, Keys: new(1)},
	{Variants: []string{"notify", "set-nx-ex"}, Clients: []int{32}, Keys: new(16)},
	{Variants: []string{"sem-fair"}, Limit: new(4), Clients: []int{8}, Keys: new(1)},
	{Variants: []string{"redsync"}, Clients: []int{24}, Keys: new(16)},
}

// soakCommon sets what every plan of the soak shares.
func soakCommon(o *plan.Overrides) {
	o.Hold, o.Duration, o.Warmup = new("exp:1ms"), new(time.Second), new(time.Duration(0))
}

// soakSample is one measurement of the process between two runs.
type soakSample struct {
	elapsed      time.Duration // since the soak began
	rssMiB       float64       // resident memory (VmRSS; elsewhere the Go runtime's Sys)
	heapMiB      float64       // Go heap in use after a GC
	goroutines   int
	runs         int   // runs finished so far
	acquisitions int64 // measured acquisitions so far
	errors       int64 // command errors so far
}

// String is the sample as one aligned line.
func (s soakSample) String() string {
	return fmt.Sprintf("soak  %dm%02ds  rss %7.1f MiB  heap %6.1f MiB  goroutines %4d  runs %5d  acquisitions %10d  errors %d",
		int(s.elapsed.Minutes()), int(s.elapsed.Seconds())%60, s.rssMiB, s.heapMiB, s.goroutines, s.runs, s.acquisitions, s.errors)
}

// runSoak runs lockbench soak: a mixed workload for --duration, with a
// sample each --interval, judged flat or not at the end.
func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o soakOptions
	fs := newFlagSet("soak", stderr)
	fs.DurationVar(&o.duration, "duration", 5*time.Minute, "how long to run the mixed workload (e.g. 5m, 1h); at least its first round of plans, the warm-up")
	fs.DurationVar(&o.interval, "interval", time.Minute, "how often to print resident memory, heap and goroutines")
	fs.StringArrayVar(&o.targets, "target", nil, "an existing server's `URL`, redis://host:port, as for run (default: a local redis-server of its own); the password comes from $"+topologies.PasswordEnv)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if o.duration <= 0 {
		return usagef("--duration: must be a positive duration such as 5m or 1h (got %v)", o.duration)
	}
	if o.interval <= 0 {
		return usagef("--interval: must be a positive duration such as 1m or 30s (got %v)", o.interval)
	}
	return o.soak(ctx, stdout, stderr)
}

// soak runs the plans round-robin on one topology until the duration is
// over or ctx ends, printing samples, and judges them.
func (o soakOptions) soak(ctx context.Context, stdout, stderr io.Writer) error {
	targets := o.targets
	if len(targets) == 0 {
		// One redis-server for the whole soak: runner.Run would start and
		// stop one per run without a target.
		local, err := topologies.StartLocal(ctx, topologies.Spec{Name: "local"})
		if err != nil {
			return fmt.Errorf("soak: starting a local redis-server: %w", err)
		}
		defer func() {
			if err := local.Close(); err != nil {
				fmt.Fprintf(stderr, "lockbench: soak: stopping the local redis-server: %v\n", err)
			}
		}()
		for _, ep := range local.Access().Endpoints {
			targets = append(targets, ep.String())
		}
	}
	plans, err := soakPlans(targets)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "lockbench: soak: %d plans round-robin on %s for %v\n",
		len(plans), strings.Join(plans[0].Topology.Targets, " "), o.duration)

	// A run is never cut short but by ctx, whose cancelled commands would
	// count as errors: the last run may end up to a plan's length late.
	// The first round of plans is the warm-up, run whole; the first sample
	// follows it, so that it has seen every plan's peak.
	began := time.Now()
	var total soakSample
	var samples []soakSample // the first is taken after the warm-up round
	var failures []string
	for i := 0; ctx.Err() == nil && (i < len(plans) || time.Since(began) < o.duration); i++ {
		rec, err := runner.Run(ctx, plans[i%len(plans)], runner.Options{})
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("soak: run %d: %w", i+1, err)
		}
		if rec != nil {
			total.runs++
			if rec.Failure != "" {
				failures = append(failures, rec.Failure)
			}
			for _, c := range rec.Cells {
				total.acquisitions += c.Acquisitions
				total.errors += c.Errors
				if c.Error != "" {
					failures = append(failures, fmt.Sprintf("%s, %d clients: %s", c.Variant, c.Clients, c.Error))
				}
			}
		}
		elapsed := time.Since(began)
		if i == len(plans)-1 || (len(samples) > 0 && elapsed < o.duration && elapsed >= o.interval*time.Duration(len(samples))) {
			samples = append(samples, takeSample(began, total))
			fmt.Fprintln(stdout, samples[len(samples)-1])
		}
	}
	last := takeSample(began, total)
	fmt.Fprintln(stdout, last)
	if ctx.Err() != nil {
		return errInterrupted
	}
	if len(failures) > 0 {
		// Not wrapped: the runs failed (exit 3), the input was fine.
		return fmt.Errorf("soak: %d run failures in %d runs; first: %s", len(failures), total.runs, failures[0])
	}
	if err := judgeSoak(samples[0], last); err != nil {
		return err
	}
	goroutines, heap, rss := soakLimits(samples[0])
	fmt.Fprintf(stdout, "soak  flat: goroutines %d -> %d (limit %d), heap %.1f -> %.1f MiB (limit %.1f), rss %.1f -> %.1f MiB (limit %.1f)\n",
		samples[0].goroutines, last.goroutines, goroutines, samples[0].heapMiB, last.heapMiB, heap, samples[0].rssMiB, last.rssMiB, rss)
	return nil
}

// soakPlans builds the plans of soakWorkload against targets, whose
// password comes from $LOCKBENCH_PASSWORD as for run.
func soakPlans(targets []string) ([]plan.Plan, error) {
	plans := make([]plan.Plan, len(soakWorkload))
	for i, o := range soakWorkload {
		soakCommon(&o)
		o.Topology = &topologies.Spec{Targets: targets, Password: os.Getenv(topologies.PasswordEnv)}
		var err error
		if plans[i], err = buildPlan(nil, o); err != nil {
			return nil, err
		}
	}
	return plans, nil
}

// takeSample measures the process now, with the totals so far.
func takeSample(began time.Time, total soakSample) soakSample {
	runtime.GC() // twice: what sync.Pools drop survives one GC in their victim caches
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	total.elapsed = time.Since(began)
	total.heapMiB = float64(ms.HeapAlloc) / (1 << 20)
	total.rssMiB = float64(ms.Sys) / (1 << 20)
	if rss, ok := residentMiB(); ok {
		total.rssMiB = rss
	}
	total.goroutines = runtime.NumGoroutine()
	return total
}

// residentMiB returns VmRSS from /proc/self/status; false where there is
// none (not Linux).
func residentMiB() (float64, bool) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
					return kb / 1024, true
				}
			}
		}
	}
	return 0, false
}

// soakLimits are the most the last sample may show, given the first after
// the warm-up: goroutines +5; heap +50% +8 MiB; resident memory, which the
// Go runtime returns to the OS lazily, 2x +32 MiB.
func soakLimits(first soakSample) (goroutines int, heapMiB, rssMiB float64) {
	return first.goroutines + 5, first.heapMiB*1.5 + 8, first.rssMiB*2 + 32
}

// judgeSoak says whether last stayed within soakLimits of first: nil when
// flat, else an error wrapping errThresholds naming each figure that grew.
func judgeSoak(first, last soakSample) error {
	goroutines, heap, rss := soakLimits(first)
	var grew []string
	if last.goroutines > goroutines {
		grew = append(grew, fmt.Sprintf("goroutines grew from %d to %d (limit %d)", first.goroutines, last.goroutines, goroutines))
	}
	if last.heapMiB > heap {
		grew = append(grew, fmt.Sprintf("heap grew from %.1f to %.1f MiB (limit %.1f)", first.heapMiB, last.heapMiB, heap))
	}
	if last.rssMiB > rss {
		grew = append(grew, fmt.Sprintf("rss grew from %.1f to %.1f MiB (limit %.1f)", first.rssMiB, last.rssMiB, rss))
	}
	if len(grew) == 0 {
		return nil
	}
	return fmt.Errorf("soak: %s: %w", strings.Join(grew, "; "), errThresholds)
}
