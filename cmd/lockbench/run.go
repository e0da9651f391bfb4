package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// runOptions are the flags of lockbench run. Their defaults are the
// plan's (plan.Default*), shown by --help; a flag not given leaves its
// setting to the scenario, else to that default.
type runOptions struct {
	settingsFlags plan.Flags // the plan's settings
	topology      topologyFlags
	scenario      string
	checks        []string
	thresholds    []record.Threshold // of checks
	format        string
	table         tableFlags
	out           string
	report        string
	hlog          string
	live          liveFlags
	runID         string // run only, not sweep
	shard         string // run only
	witness       string // run only
	shardWait     time.Duration
	history       historyFlags // run only
	overwrite     bool         // run only
	cpuProfile    string       // run only
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, p, help, err := parseRun(args, stderr)
	if help || err != nil {
		return err
	}
	if err := o.preflight(p); err != nil {
		return err
	}
	return withCPUProfile(o.cpuProfile, func() error { return execute(ctx, p, o, stdout, stderr) })
}

// parseRun parses the flags of run into its options and plan.
func parseRun(args []string, stderr io.Writer) (o runOptions, p plan.Plan, help bool, err error) {
	fs := newFlagSet("run", stderr)
	o.register(fs)
	fs.StringVar(&o.runID, "run-id", "", "the `ID` of the run, naming its keys (lockbench:<run-id>:) and its record: 1-64 of A-Z a-z 0-9 . _ - (default: start time and a random suffix)")
	fs.StringVar(&o.shard, "shard", "", "run shard `i/N` (1/3): this process's share of each cell's clients, or of the offered rate; needs --run-id, the same in every shard (see lockbench merge)")
	fs.StringVar(&o.witness, "witness", "", "keep the oracle in a Redis of its own at `URL` (redis://host:port), never one under test: the shards of a run are checked together there, meet there before each cell and leave their records there for merge; password from $"+runner.WitnessPasswordEnv)
	fs.BoolVar(&o.overwrite, "overwrite", false, "replace a record of the same run id already at --out (default: refuse, before the run)")
	fs.DurationVar(&o.shardWait, "shard-wait", runner.DefaultShardWait, "how long a shard waits at the witness for the others before the first cell (later cells: at most 30s); then it starts without them")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write this process's CPU profile over the run to `FILE`, for go tool pprof")
	o.history.register(fs)
	if help, err = parse(fs, args); help || err != nil {
		return o, p, help, err
	}
	if help, err = o.table.check(fs.Output()); help || err != nil {
		return o, p, help, err
	}
	o.history.maxSet = fs.Changed("history-max")
	if _, err = o.history.options(); err != nil {
		return o, p, false, err
	}
	if p, err = o.plan(fs.Changed, stderr); err != nil {
		return o, p, false, err
	}
	if _, err = o.sharding(p); err != nil {
		return o, p, false, err
	}
	_, err = o.witnessAt()
	return o, p, false, err
}

// witnessAt parses --witness: nil without one.
func (o runOptions) witnessAt() (*topologies.Endpoint, error) {
	if o.shardWait <= 0 {
		return nil, usagef("--shard-wait: %v is not a positive duration (e.g. 2m)", o.shardWait)
	}
	if o.witness == "" {
		return nil, nil
	}
	ep, err := parseWitness(o.witness)
	return &ep, err
}

// parseWitness parses a --witness URL; its errors are bad input.
func parseWitness(raw string) (topologies.Endpoint, error) {
	ep, err := runner.ParseWitness(raw)
	if err != nil {
		return ep, usagef("--witness: %w", err)
	}
	return ep, nil
}

// sharding checks --run-id and --shard against the plan p and returns the
// shard, nil for the whole load.
func (o runOptions) sharding(p plan.Plan) (*workloads.Shard, error) {
	if o.runID != "" {
		if err := runner.CheckRunID(o.runID); err != nil {
			return nil, usagef("--run-id: %w", err)
		}
	}
	if o.shard == "" {
		return nil, nil
	}
	shard, err := workloads.ParseShard(o.shard)
	if err != nil {
		return nil, usagef("--shard: %w", err)
	}
	if o.runID == "" {
		return nil, usagef("--shard: needs --run-id ID, the same for every shard, so that the shards share keys and one run id")
	}
	if err := plan.CheckShard(p, shard); err != nil {
		return nil, usageError{err}
	}
	return &shard, nil
}

// register defines the flags of a run on fs.
func (o *runOptions) register(fs *pflag.FlagSet) {
	o.settingsFlags.Register(fs)
	o.topology.register(fs)
	fs.StringVar(&o.scenario, "scenario", "", "a named scenario (see lockbench scenarios) or a scenario file.yaml, `NAME|FILE`; flags given as well override it")
	fs.StringVar(&o.format, "format", "table", "output `FORMAT`: "+strings.Join(render.Formats, ", "))
	fs.StringVar(&o.table.columns, "columns", "", "table columns by `NAMES`, comma-separated (--columns list names them)")
	fs.BoolVar(&o.table.wide, "wide", false, "table: every column")
	fs.StringArrayVar(&o.checks, "check", nil, "a threshold `RULE` every cell must meet, else exit status 1: acquire.p99<5ms, overlaps==0, throughput>=1000 (repeatable)")
	fs.StringVar(&o.out, "out", "", "the record `FILE` (default "+record.DefaultDir+"/<run-id>.json)")
	fs.StringVar(&o.report, "report", "", "also write the record as a self-contained HTML report with charts to `FILE` (as lockbench report), interrupted runs too")
	o.live.register(fs)
	fs.StringVar(&o.hlog, "hlog", "", "also write each cell's acquire latency into `DIR` as an HdrHistogram interval log (1 s intervals, µs: HistogramLogProcessor -outputValueUnitRatio 1)")
}

// plan checks the flags and builds their plan, over the scenario of
// --scenario if any; changed says which flags were given. Every error
// names its flag and what it accepts. A driver's library installed on
// first use says so on progress.
func (o *runOptions) plan(changed func(flag string) bool, progress io.Writer) (plan.Plan, error) {
	s, ov, err := o.settings(changed)
	if err != nil {
		return plan.Plan{}, err
	}
	ov.Progress = progress
	return buildPlan(s, ov)
}

// settings parses the flags: the scenario of --scenario (nil without
// one), the overrides of the flags given, and run's own --format and
// --check.
func (o *runOptions) settings(changed func(flag string) bool) (s *plan.Scenario, ov plan.Overrides, err error) {
	if err := render.CheckFormat(o.format); err != nil {
		return nil, ov, usagef("--format: %w", err)
	}
	if o.thresholds, err = parseChecks(o.checks); err != nil {
		return nil, ov, err
	}
	if o.scenario != "" {
		found, err := plan.LookupScenario(o.scenario)
		if err != nil {
			return nil, ov, usagef("--scenario: %w", err)
		}
		s = &found
	}
	ov, err = o.overrides(changed)
	return s, ov, err
}

// overrides are the plan's settings among the flags given.
func (o *runOptions) overrides(changed func(flag string) bool) (plan.Overrides, error) {
	topology, err := o.topology.override(changed)
	if err != nil {
		return plan.Overrides{}, err
	}
	ov := o.settingsFlags.Overrides(changed)
	ov.Topology = topology
	return ov, nil
}

// parseChecks parses the thresholds of --check.
func parseChecks(checks []string) ([]record.Threshold, error) {
	var thresholds []record.Threshold
	for _, c := range checks {
		t, err := record.ParseThreshold(c)
		if err != nil {
			return nil, usagef("--check: %w", err)
		}
		thresholds = append(thresholds, t)
	}
	return thresholds, nil
}

// buildPlan builds the plan of a scenario and overrides; its errors are
// bad input.
func buildPlan(s *plan.Scenario, ov plan.Overrides) (plan.Plan, error) {
	p, err := plan.Build(s, ov)
	if err != nil {
		return plan.Plan{}, usageError{err}
	}
	return p, nil
}

// execute runs the plan, saves the record (also when interrupted), and
// prints it.
func execute(ctx context.Context, p plan.Plan, o runOptions, stdout, stderr io.Writer) error {
	warnEvenRedlock(stderr, p.Topology)
	if p.Topology.Name == "embedded" && o.topology.name == "" {
		fmt.Fprintln(stderr, "lockbench: redis-server not found on PATH; using the embedded miniredis, whose figures are NOT representative of a real Redis server (install redis-server: apt-get install -y redis-server, or brew install redis)")
	}
	lv, err := startLive(o.live, p, stderr)
	if err != nil {
		return err
	}
	defer lv.Stop()
	shard, err := o.sharding(p) // checked with the flags
	if err != nil {
		return err
	}
	at, err := o.witnessAt()
	if err != nil {
		return err
	}
	histories, err := o.history.options()
	if err != nil {
		return err
	}
	opts := runner.Options{
		RunID: o.runID, History: histories,
		Shard: shard, Witness: at, ShardWait: o.shardWait,
		OnTopology: func(t topologies.Topology, startup time.Duration) {
			lv.Println(fmt.Sprintf("lockbench: topology %s at %s (up in %.2fs)", t.Name(), describeNodes(t.Nodes()), startup.Seconds()))
		},
		OnCell: func(c runner.CellStart) {
			rep := ""
			if c.Repeat > 1 {
				rep = fmt.Sprintf(", repetition %d/%d", c.Repetition, c.Repeat)
			}
			if c.Server != "" {
				rep += ", on " + c.Server
			}
			lv.Cell(progressCell(c), fmt.Sprintf("lockbench: [%d/%d] %s, %d clients%s", c.Index+1, c.Total, c.Variant, c.Clients, rep))
		},
	}
	rec, err := runner.Run(ctx, p, opts)
	lv.Stop()
	if err != nil {
		return runError(ctx, err)
	}
	if rec.Interrupted && !measuredAny(rec) {
		return errNothingMeasured
	}
	to := deliverable{record: recordPath(o.out, rec.RunID, shard), report: o.report, hlog: o.hlog}
	saved, err := deliver(rec, to, func() error { return render.RenderWith(stdout, rec, o.format, o.table.options(stdout)) }, stderr)
	historyErr := reportHistories(rec, stderr)
	if rec.Interrupted {
		return fmt.Errorf("%w; what was measured is %s", errInterrupted, saved)
	}
	if rec.Failure != "" {
		// Not wrapped: the run failed (exit 3), its input was fine.
		return fmt.Errorf("run failed: %s; what was measured is %s", rec.Failure, saved)
	}
	if err != nil {
		return err
	}
	if failed, why := render.AllFailed(rec); failed {
		return fmt.Errorf("run failed: %s; what was measured is %s", why, saved)
	}
	if failed := record.Evaluate(rec, o.thresholds); len(failed) > 0 {
		for _, f := range failed {
			fmt.Fprintln(stderr, "lockbench: check failed: "+f.String())
		}
		return fmt.Errorf("%w: %d of %d checks failed", errThresholds, len(failed), len(o.thresholds)*len(rec.Cells))
	}
	return historyErr
}

// runError is the error of a run that measured nothing: errNothingMeasured
// when a signal stopped it, a usage error when another run holds its id.
func runError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return errNothingMeasured
	case errors.Is(err, runner.ErrRunIDInUse):
		return usagef("--run-id: %w", err)
	}
	return err
}

// describeNodes lists nodes as role name=address.
func describeNodes(nodes []topologies.Node) string {
	var parts []string
	for _, n := range nodes {
		parts = append(parts, n.Name+"="+n.Endpoint.String())
	}
	return strings.Join(parts, " ")
}
