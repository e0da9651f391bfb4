package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
)

// ErrNotFlat is wrapped by the error of a soak whose process grew: its
// goroutines, heap or resident memory passed their limits.
var ErrNotFlat = errors.New("thresholds failed")

// ErrBadOptions is wrapped by the error of Options that are not valid; the
// message names the flag of lockbench soak and what it accepts.
var ErrBadOptions = errors.New("soak: bad options")

// Options say how long a soak runs and where.
type Options struct {
	// Duration is how long the soak runs, at least its first round of
	// plans, the warm-up. lockbench soak's default 5m.
	Duration time.Duration
	// Interval is how often a sample is taken. lockbench soak's default
	// 1m.
	Interval time.Duration
	// Targets are existing servers' URLs, their password from
	// $LOCKBENCH_PASSWORD as for run. Default none: a local redis-server
	// of its own.
	Targets []string
	// OnSample, when set, is called with every sample as it is taken.
	OnSample func(Sample)
	// Log takes a line on what the soak runs. Default none.
	Log io.Writer
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

// Sample is one measurement of the process between two runs.
type Sample struct {
	Elapsed      time.Duration // since the soak began
	RSSMiB       float64       // resident memory (VmRSS; elsewhere the Go runtime's Sys)
	HeapMiB      float64       // Go heap in use after a GC
	Goroutines   int
	Runs         int   // runs finished so far
	Acquisitions int64 // measured acquisitions so far
	Errors       int64 // command errors so far
}

// String is the sample as one aligned line.
func (s Sample) String() string {
	return fmt.Sprintf("soak  %dm%02ds  rss %7.1f MiB  heap %6.1f MiB  goroutines %4d  runs %5d  acquisitions %10d  errors %d",
		int(s.Elapsed.Minutes()), int(s.Elapsed.Seconds())%60, s.RSSMiB, s.HeapMiB, s.Goroutines, s.Runs, s.Acquisitions, s.Errors)
}

// Summary is what a soak saw: the first sample after the warm-up round
// and the last.
type Summary struct {
	First, Last Sample
}

// String says that the soak stayed flat, with its figures and limits.
func (s Summary) String() string {
	goroutines, heap, rss := limits(s.First)
	return fmt.Sprintf("soak  flat: goroutines %d -> %d (limit %d), heap %.1f -> %.1f MiB (limit %.1f), rss %.1f -> %.1f MiB (limit %.1f)",
		s.First.Goroutines, s.Last.Goroutines, goroutines, s.First.HeapMiB, s.Last.HeapMiB, heap, s.First.RSSMiB, s.Last.RSSMiB, rss)
}

// Run runs the plans round-robin on one topology until o.Duration is
// over or ctx ends, taking samples, and judges them: an error wrapping
// ErrNotFlat when the process grew, another when runs failed or ctx ended
// (the summary then has the last sample).
func Run(ctx context.Context, o Options) (Summary, error) {
	if o.Duration <= 0 {
		return Summary{}, inputerr.Errorf(ErrBadOptions, "--duration: must be a positive duration such as 5m or 1h (got %v)", o.Duration)
	}
	if o.Interval <= 0 {
		return Summary{}, inputerr.Errorf(ErrBadOptions, "--interval: must be a positive duration such as 1m or 30s (got %v)", o.Interval)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.OnSample == nil {
		o.OnSample = func(Sample) {}
	}
	targets := o.Targets
	if len(targets) == 0 {
		// One redis-server for the whole soak: runner.Run would start and
		// stop one per run without a target.
		local, err := topologies.StartLocal(ctx, topologies.Spec{Name: "local"})
		if err != nil {
			return Summary{}, fmt.Errorf("soak: starting a local redis-server: %w", err)
		}
		defer func() {
			if err := local.Close(); err != nil {
				fmt.Fprintf(o.Log, "lockbench: soak: stopping the local redis-server: %v\n", err)
			}
		}()
		for _, ep := range local.Access().Endpoints {
			targets = append(targets, ep.String())
		}
	}
	plans, err := soakPlans(targets)
	if err != nil {
		return Summary{}, err
	}
	fmt.Fprintf(o.Log, "lockbench: soak: %d plans round-robin on %s for %v\n",
		len(plans), strings.Join(plans[0].Topology.Targets, " "), o.Duration)
	return o.loop(ctx, plans)
}

// loop runs the plans round-robin and judges the samples.
func (o Options) loop(ctx context.Context, plans []plan.Plan) (Summary, error) {
	// A run is never cut short but by ctx, whose cancelled commands would
	// count as errors: the last run may end up to a plan's length late.
	// The first round of plans is the warm-up, run whole; the first sample
	// follows it, so that it has seen every plan's peak.
	began := time.Now()
	var total Sample
	var samples []Sample // the first is taken after the warm-up round
	var failures []string
	for i := 0; ctx.Err() == nil && (i < len(plans) || time.Since(began) < o.Duration); i++ {
		rec, err := runner.Run(ctx, plans[i%len(plans)], runner.Options{})
		if err != nil && ctx.Err() == nil {
			return Summary{}, fmt.Errorf("soak: run %d: %w", i+1, err)
		}
		if rec != nil {
			total.Runs++
			if rec.Failure != "" {
				failures = append(failures, rec.Failure)
			}
			for _, c := range rec.Cells {
				total.Acquisitions += c.Acquisitions
				total.Errors += c.Errors
				if c.Error != "" {
					failures = append(failures, fmt.Sprintf("%s, %d clients: %s", c.Variant, c.Clients, c.Error))
				}
			}
		}
		elapsed := time.Since(began)
		if i == len(plans)-1 || (len(samples) > 0 && elapsed < o.Duration && elapsed >= o.Interval*time.Duration(len(samples))) {
			samples = append(samples, takeSample(began, total))
			o.OnSample(samples[len(samples)-1])
		}
	}
	sum := Summary{Last: takeSample(began, total)}
	o.OnSample(sum.Last)
	if len(samples) > 0 {
		sum.First = samples[0]
	}
	if ctx.Err() != nil {
		return sum, fmt.Errorf("soak: %w", context.Cause(ctx))
	}
	if len(failures) > 0 {
		return sum, fmt.Errorf("soak: %d run failures in %d runs; first: %s", len(failures), total.Runs, failures[0])
	}
	return sum, Judge(sum.First, sum.Last)
}

// soakPlans builds the plans of soakWorkload against targets, whose
// password comes from $LOCKBENCH_PASSWORD as for run.
func soakPlans(targets []string) ([]plan.Plan, error) {
	plans := make([]plan.Plan, len(soakWorkload))
	for i, o := range soakWorkload {
		soakCommon(&o)
		o.Topology = &topologies.Spec{Targets: targets, Password: os.Getenv(topologies.PasswordEnv)}
		var err error
		if plans[i], err = plan.Build(nil, o); err != nil {
			return nil, inputerr.New(ErrBadOptions, err)
		}
	}
	return plans, nil
}

// takeSample measures the process now, with the totals so far.
func takeSample(began time.Time, total Sample) Sample {
	runtime.GC() // twice: what sync.Pools drop survives one GC in their victim caches
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	total.Elapsed = time.Since(began)
	total.HeapMiB = float64(ms.HeapAlloc) / (1 << 20)
	total.RSSMiB = float64(ms.Sys) / (1 << 20)
	if kib, ok := procfs.StatusKiB(0, "VmRSS"); ok {
		total.RSSMiB = float64(kib) / 1024
	}
	total.Goroutines = runtime.NumGoroutine()
	return total
}

// limits are the most the last sample may show, given the first after
// the warm-up: goroutines +5; heap +50% +8 MiB; resident memory, which the
// Go runtime returns to the OS lazily, 2x +32 MiB.
func limits(first Sample) (goroutines int, heapMiB, rssMiB float64) {
	return first.Goroutines + 5, first.HeapMiB*1.5 + 8, first.RSSMiB*2 + 32
}

// Judge says whether last stayed within the limits of first: nil when
// flat, else an error wrapping ErrNotFlat naming each figure that grew.
func Judge(first, last Sample) error {
	goroutines, heap, rss := limits(first)
	var grew []string
	if last.Goroutines > goroutines {
		grew = append(grew, fmt.Sprintf("goroutines grew from %d to %d (limit %d)", first.Goroutines, last.Goroutines, goroutines))
	}
	if last.HeapMiB > heap {
		grew = append(grew, fmt.Sprintf("heap grew from %.1f to %.1f MiB (limit %.1f)", first.HeapMiB, last.HeapMiB, heap))
	}
	if last.RSSMiB > rss {
		grew = append(grew, fmt.Sprintf("rss grew from %.1f to %.1f MiB (limit %.1f)", first.RSSMiB, last.RSSMiB, rss))
	}
	if len(grew) == 0 {
		return nil
	}
	return fmt.Errorf("soak: %s: %w", strings.Join(grew, "; "), ErrNotFlat)
}
