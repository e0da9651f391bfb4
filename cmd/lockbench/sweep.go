package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner"
)

// Defaults of sweep where they differ from run's.
var (
	sweepClients  = []int{1, 2, 4, 8, 16, 32, 64, 128}
	sweepDuration = 5 * time.Second
	sweepRateCap  = 64
)

// sweepOptions are sweep's own flags, beside those of a run.
type sweepOptions struct {
	slo        []string
	rates      []string
	minGain    float64
	targetRate float64
	maxCPU     float64
}

// runSweep steps clients or offered rate upward per variant, fits the
// scalability model and plans shards.
func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep", stderr)
	var o runOptions
	var so sweepOptions
	o.register(fs)
	fs.StringArrayVar(&so.slo, "slo", nil, "a threshold `RULE` every step must meet, e.g. 'acquire.p99<5ms' (repeatable); the first step that breaks it is the variant's last")
	fs.StringSliceVar(&so.rates, "rates", nil, "sweep the offered rate instead of clients, `RATES` per second: 1000,2000,4000 (open loop; --clients caps the clients in progress, default 64)")
	fs.Float64Var(&so.minGain, "min-gain", 0.05, "the throughput gain over the best step, a `FRACTION`, that counts as rising; two steps in a row without it end the variant's sweep")
	fs.Float64Var(&so.targetRate, "target-rate", 0, "the acquisitions per second, `RATE`, to plan Redis nodes (masters) for, from the Redis CPU per acquisition at the best step within the SLO")
	fs.Float64Var(&so.maxCPU, "max-cpu", 0.7, "the planned busy `FRACTION` of each Redis node's core, in (0, 1]")
	fs.Lookup("clients").DefValue = intList(sweepClients)
	fs.Lookup("clients").Usage = "the client counts to step through, ascending: `N,...`"
	fs.Lookup("duration").DefValue = sweepDuration.String()
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if help, err := o.table.check(fs.Output()); help || err != nil {
		return err
	}
	for _, refused := range []struct{ flag, instead string }{
		{"repeat", "a sweep runs each step once"}, {"check", "give the thresholds with --slo"},
		{"rate", "give the steps with --rates"}, {"stages", "give the steps with --rates"},
	} {
		if fs.Changed(refused.flag) {
			return usagef("--%s: not for sweep: %s", refused.flag, refused.instead)
		}
	}
	s, ov, err := o.settings(fs.Changed)
	if err != nil {
		return err
	}
	sweepDefaults(&ov, s, len(so.rates) > 0)
	p, err := buildPlan(s, ov)
	if err != nil {
		return err
	}
	opts, err := so.options(p.Clients)
	if err != nil {
		return err
	}
	if err := checkMemory(p, nil); err != nil {
		return err
	}
	if err := checkSweepOutputs(o); err != nil {
		return err
	}
	warnEvenRedlock(stderr, p.Topology)
	lv, err := startLive(o.live, p, stderr)
	if err != nil {
		return err
	}
	defer lv.stop()
	// Each step is a run of one cell: the progress counts the steps of
	// every variant, the most the sweep can run.
	steps, index := max(len(opts.Clients), len(opts.Rates)), 0
	opts.OnStep = func(variant string, step int, label string) {
		index = slices.Index(p.Variants, variant)*steps + step
		lv.println(fmt.Sprintf("lockbench: sweep %s, step %d: %s", variant, step+1, label))
	}
	rec, err := runner.Sweep(ctx, p, opts, runner.Options{OnCell: func(c runner.CellStart) {
		c.Index, c.Total = index, len(p.Variants)*steps
		lv.cell(c, "")
	}})
	lv.stop()
	if err != nil {
		return runError(ctx, err)
	}
	if rec.Interrupted && !measuredAny(rec) {
		return errNothingMeasured
	}
	to := deliverable{record: recordPath(o.out, rec.RunID, nil), report: o.report}
	saved, err := deliver(rec, to, func() error {
		if o.format == "json" || o.format == "csv" {
			return render.Render(stdout, rec, o.format)
		}
		if err := render.RenderSweep(stdout, rec, o.format == "markdown"); err != nil || o.format != "table" || !o.table.given() {
			return err
		}
		return render.RenderWith(stdout, rec, o.format, o.table.options(stdout)) // and every step's cell
	}, stderr)
	if rec.Interrupted {
		return fmt.Errorf("%w; what was measured is %s", errInterrupted, saved)
	}
	return err
}

// checkSweepOutputs checks sweep's --out (or the default results/runs/)
// and --report before any load. (--hlog is run's.)
func checkSweepOutputs(o runOptions) error {
	o.hlog = ""
	return o.checkOutputs()
}

// sweepDefaults gives ov the sweep's own client steps (sweeping rates:
// its cap on clients) and duration where neither the flags nor the
// scenario s set them.
func sweepDefaults(ov *plan.Overrides, s *plan.Scenario, rates bool) {
	var scenario plan.Scenario
	if s != nil {
		scenario = *s
	}
	if ov.Clients == nil && len(scenario.Clients) == 0 {
		ov.Clients = sweepClients
		if rates {
			ov.Clients = []int{sweepRateCap}
		}
	}
	if ov.Duration == nil && ov.Ops == 0 && scenario.Duration == "" {
		ov.Duration = new(sweepDuration)
	}
}

// options checks sweep's flags and turns them into the runner's options.
func (so sweepOptions) options(clients []int) (runner.SweepOptions, error) {
	opts := runner.SweepOptions{Clients: clients, MinGain: so.minGain, TargetRate: so.targetRate, MaxUtilization: so.maxCPU}
	if !slices.IsSorted(clients) || len(slices.Compact(slices.Clone(clients))) != len(clients) {
		return opts, usagef("--clients: the steps must rise (got %s)", intList(clients))
	}
	for _, r := range so.rates {
		rate, err := strconv.ParseFloat(r, 64)
		if err != nil || rate <= 0 || (len(opts.Rates) > 0 && rate <= opts.Rates[len(opts.Rates)-1]) {
			return opts, usagef("--rates: want rising positive rates per second such as 1000,2000,4000 (got %q)", strings.Join(so.rates, ","))
		}
		opts.Rates = append(opts.Rates, rate)
	}
	if len(opts.Rates) > 0 {
		opts.Clients = nil
	}
	for _, text := range so.slo {
		t, err := record.ParseThreshold(text)
		if err != nil {
			return opts, usagef("--slo: %w", err)
		}
		opts.SLO = append(opts.SLO, t)
	}
	if so.minGain <= 0 || so.minGain >= 1 {
		return opts, usagef("--min-gain: want a fraction in (0, 1) such as 0.05 (got %v)", so.minGain)
	}
	if so.targetRate < 0 {
		return opts, usagef("--target-rate: want acquisitions per second, 0 or more (got %v)", so.targetRate)
	}
	if so.maxCPU <= 0 || so.maxCPU > 1 {
		return opts, usagef("--max-cpu: want a fraction in (0, 1] such as 0.7 (got %v)", so.maxCPU)
	}
	return opts, nil
}

func intList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}
