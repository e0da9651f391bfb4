package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// runOptions are the flags of lockbench run. Their defaults are the
// plan's (plan.Default*), shown by --help; a flag not given leaves its
// setting to the scenario, else to that default.
type runOptions struct {
	variants       []string
	clients        []int
	client         string
	topology       topologyFlags
	keys           int
	hold, think    string
	duration       time.Duration
	ops            int64
	warmup         time.Duration
	ttl            time.Duration
	retry          string
	acquireTimeout time.Duration
	limit          int
	rate           string
	stages         string
	clockSkew      string
	clockJumps     []string
	faults         []string
	clientGroups   []string
	scenario       string
	checks         []string
	thresholds     []record.Threshold // of checks
	repeat         int
	format         string
	table          tableFlags
	out            string
	report         string
	hlog           string
	fence          string
	waitStrict     bool
	destructive    bool
	live           liveFlags
	runID          string // run only, not sweep
	shard          string // run only
	witness        string // run only
	shardWait      time.Duration
	history        historyFlags // run only
	overwrite      bool         // run only
	cpuProfile     string       // run only
	drivers        []string
	driverProcs    int
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
	if p, err = o.plan(fs.Changed); err != nil {
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
	fs.StringSliceVar(&o.variants, "variants", plan.DefaultVariants, "comma-separated `NAMES` of the variants to run (see lockbench variants); drv:NAME runs the lock driver NAME")
	fs.StringArrayVar(&o.drivers, "driver", nil, "name a lock driver's command, `NAME=CMD` (repeatable), for --variants drv:NAME; others are found by their manifests (drivers/*/driver.json)")
	fs.IntVar(&o.driverProcs, "driver-procs", plan.DefaultDriverProcs, "spread a driver cell's clients over `N` driver processes, client i on process i mod N")
	fs.IntSliceVar(&o.clients, "clients", plan.DefaultClients, "concurrent clients; a comma list `N,...` runs each count")
	fs.StringVar(&o.client, "client", plan.DefaultClient, "client `LIBRARY`: "+strings.Join(clients.Names, " or "))
	o.topology.register(fs)
	fs.StringVar(&o.scenario, "scenario", "", "a named scenario (see lockbench scenarios) or a scenario file.yaml, `NAME|FILE`; flags given as well override it")
	fs.IntVar(&o.keys, "keys", plan.DefaultKeys, "`N` distinct lock names clients pick from uniformly; 1 is maximum contention")
	fs.StringVar(&o.hold, "hold", plan.DefaultHold, "time in the critical section, a duration or distribution `DIST`: 2ms, exp:2ms, uniform:1ms-5ms, normal:10ms,2ms")
	fs.StringVar(&o.think, "think", plan.DefaultThink, "pause after each release, a `DIST` as --hold")
	fs.DurationVar(&o.duration, "duration", plan.DefaultDuration, "measured time per cell (0 with --ops: until the ops are done)")
	fs.Int64Var(&o.ops, "ops", 0, "stop each cell after `N` measured acquisitions (0: by --duration)")
	fs.DurationVar(&o.warmup, "warmup", plan.DefaultWarmup, "warm-up per cell, recorded apart and left out of the table")
	fs.DurationVar(&o.ttl, "ttl", variants.DefaultTTL, "lease time of expiring locks")
	fs.StringVar(&o.retry, "retry", "", "retry `POLICY` of a blocking acquire: none, spin, fixed:10ms, exp:1ms-100ms (default: each variant's own)")
	fs.DurationVar(&o.acquireTimeout, "acquire-timeout", plan.DefaultAcquireTimeout, "give up a blocking acquire after this long")
	fs.StringVar(&o.rate, "rate", "", "open loop: the `RATE` of acquisitions offered per second across all clients (5000, poisson:5000); --clients caps how many are in progress")
	fs.StringVar(&o.stages, "stages", "", "open loop: ramp the rate linearly through `DURATION:RATE,...` (10s:1000,20s:5000,10s:0); replaces --duration")
	fs.StringVar(&o.fence, "fence", plan.DefaultFence, "what the protected resource does with a write whose fencing token is lower than one it has seen, its `MODE`: count (it as stale) or reject (refuse it, Kleppmann's fencing)")
	fs.BoolVar(&o.waitStrict, "wait-strict", false, "wait-replicas: release and retry an acquisition too few replicas acknowledged (default: count it)")
	fs.BoolVar(&o.destructive, "allow-destructive", false, "let a pause fault (with for=) act on a server lockbench did not start, as CLIENT PAUSE, which every client of that server waits out; nothing else is ever allowed there")
	fs.IntVar(&o.limit, "limit", plan.DefaultLimit, "`N` permits of a semaphore (holders admitted at once); 1 for locks")
	fs.StringVar(&o.clockSkew, "clock-skew", plan.DefaultClockSkew, "per-client clock `OFFSET`: a fixed +200ms, or uniform:-500ms..500ms")
	fs.StringArrayVar(&o.faults, "fault", nil, "a `FAULT` beside each cell's measured phase, on a topology lockbench starts: "+
		"'at=5s pause node=master for=3s', kill, 'restart ... delay=1s', 'failover node=replica-1', 'clock node=node-3 jump=+30s', "+
		"'partition sides=master,clients-a|replicas,sentinels,clients-b for=5s', 'reset node=master fraction=0.3 for=1s' (repeatable; see lockbench scenarios)")
	fs.StringSliceVar(&o.clientGroups, "client-groups", nil, "split the clients evenly into named `GROUPS`, each on connections of its own: a,b makes clients-a and clients-b, "+
		"which network faults' sides name: --fault 'at=1s partition sides=master,clients-a|replicas,sentinels,clients-b for=5s'")
	fs.StringArrayVar(&o.clockJumps, "clock-jump", nil, "jump every client clock by `+JUMP@AT`, a point of each cell: +2s@5s (repeatable)")
	fs.IntVar(&o.repeat, "repeat", plan.DefaultRepeat, "run every cell `N` times (interleaved, fresh keys): the table shows medians and spread, the record keeps every repetition")
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
// names its flag and what it accepts.
func (o *runOptions) plan(changed func(flag string) bool) (plan.Plan, error) {
	s, ov, err := o.settings(changed)
	if err != nil {
		return plan.Plan{}, err
	}
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
	ov := plan.Overrides{
		Variants:       givenList(changed, "variants", o.variants),
		Clients:        givenList(changed, "clients", o.clients),
		Topology:       topology,
		Keys:           given(changed, "keys", o.keys),
		Hold:           given(changed, "hold", o.hold),
		Think:          given(changed, "think", o.think),
		Duration:       given(changed, "duration", o.duration),
		Warmup:         given(changed, "warmup", o.warmup),
		TTL:            given(changed, "ttl", o.ttl),
		AcquireTimeout: given(changed, "acquire-timeout", o.acquireTimeout),
		Retry:          given(changed, "retry", o.retry),
		Limit:          given(changed, "limit", o.limit),
		Repeat:         given(changed, "repeat", o.repeat),
		ClockSkew:      given(changed, "clock-skew", o.clockSkew),
		ClockJumps:     givenList(changed, "clock-jump", o.clockJumps),
		Faults:         givenList(changed, "fault", o.faults),
		ClientGroups:   givenList(changed, "client-groups", o.clientGroups),
		Fence:          given(changed, "fence", o.fence),

		Ops: o.ops, Rate: o.rate, Stages: o.stages, WaitStrict: o.waitStrict, AllowDestructive: o.destructive,
		Drivers: o.drivers, DriverProcs: given(changed, "driver-procs", o.driverProcs),
	}
	if changed("client") {
		ov.Client = o.client
	}
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

// given returns the flag's value when it was given, else nil.
func given[T any](changed func(flag string) bool, flag string, value T) *T {
	if !changed(flag) {
		return nil
	}
	return &value
}

// givenList returns the flag's list when it was given, empty or not, else
// nil.
func givenList[T any](changed func(flag string) bool, flag string, list []T) []T {
	if !changed(flag) {
		return nil
	}
	if list == nil {
		return []T{}
	}
	return list
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
