package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner"
)

// sweepOptions are sweep's own flags, beside those of a run.
type sweepOptions struct {
	slo        []string
	rates      []string
	minGain    float64
	targetRate float64
	maxCPU     float64
	nodes      []int
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
	fs.Float64Var(&so.minGain, "min-gain", runner.DefaultMinGain, "the throughput gain over the best step, a `FRACTION`, that counts as rising; two steps in a row without it end the variant's sweep")
	fs.Float64Var(&so.targetRate, "target-rate", 0, "the acquisitions per second, `RATE`, to plan Redis nodes (masters) for, from the Redis CPU per acquisition at the best step within the SLO")
	fs.Float64Var(&so.maxCPU, "max-cpu", runner.DefaultMaxUtilization, "the planned busy `FRACTION` of each Redis node's core, in (0, 1]")
	fs.IntSliceVar(&so.nodes, "nodes", nil, "sweep on local clusters of `N,...` masters (1,2,3), each with --node-cpu if given, beside the plan's prediction from the one-node step; --clients are then per node")
	fs.Lookup("clients").DefValue = runner.IntList(runner.DefaultSweepClients)
	fs.Lookup("clients").Usage = "the client counts to step through, ascending: `N,...`"
	fs.Lookup("duration").DefValue = runner.DefaultSweepDuration.String()
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if help, err := o.table.check(fs.Output()); help || err != nil {
		return err
	}
	for _, refused := range []struct{ flag, instead string }{
		{"repeat", "a sweep runs each step once"}, {"check", "give the thresholds with --slo"},
		{"rate", "give the steps with --rates"}, {"stages", "give the steps with --rates"},
		{"servers", "a sweep steps one server: give it with --server, and sweep each server apart"},
	} {
		if fs.Changed(refused.flag) {
			return usagef("--%s: not for sweep: %s", refused.flag, refused.instead)
		}
	}
	s, ov, err := o.settings(fs.Changed)
	if err != nil {
		return err
	}
	runner.SweepDefaults(&ov, s, len(so.rates) > 0)
	ov.Progress = stderr
	p, err := buildPlan(s, ov)
	if err != nil {
		return err
	}
	opts, err := so.options(p.Clients)
	if err != nil {
		return err
	}
	if err := plan.CheckMemory(p, nil); err != nil {
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
	defer lv.Stop()
	// Each step is a run of one cell: the progress counts the steps of
	// every variant, the most the sweep can run.
	steps, index := max(len(opts.Clients), len(opts.Rates))*max(1, len(opts.Nodes)), 0
	opts.OnStep = func(variant string, step int, label string) {
		index = slices.Index(p.Variants, variant)*steps + step
		lv.Println(fmt.Sprintf("lockbench: sweep %s, step %d: %s", variant, step+1, label))
	}
	rec, err := runner.Sweep(ctx, p, opts, runner.Options{OnCell: func(c runner.CellStart) {
		c.Index, c.Total = index, len(p.Variants)*steps
		lv.Cell(progressCell(c), "")
	}})
	lv.Stop()
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

// options checks sweep's flags and turns them into the runner's options.
func (so sweepOptions) options(clients []int) (runner.SweepOptions, error) {
	opts := runner.SweepOptions{Clients: clients, MinGain: so.minGain, TargetRate: so.targetRate, MaxUtilization: so.maxCPU, Nodes: so.nodes}
	if err := opts.Check(); err != nil { // before the rates replace the client steps
		return opts, usageError{err}
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
	return opts, nil
}
