package runner

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/witness"
	"github.com/lockbench/lockbench/workloads"
)

// Options are the runner's own settings, apart from the plan.
type Options struct {
	// RunID names the run and its keys (lockbench:<run-id>:). Default: the
	// start time and a random suffix.
	RunID string
	// OnTopology, when set, is called once the topology is up and answers,
	// with the time that took.
	OnTopology func(t topologies.Topology, startup time.Duration)
	// OnCell, when set, is called before each cell starts.
	OnCell func(CellStart)
	// Shard, when set, runs only this shard's share of each cell (see
	// workloads.Shard.Apply): the plan stays the whole run's, the cells
	// get the shard's clients. Other shards run with the same RunID, on
	// the same keys. Default nil: the whole load.
	Shard *workloads.Shard
	// Witness, when set, is a Redis of its own (never one under test)
	// that keeps the cells' oracles, so that the shards of a run are
	// checked together (package witness). The shards meet there at every
	// cell's start, and each leaves its record there for merge. Default
	// nil: the oracle lives in this process.
	Witness *topologies.Endpoint
	// ShardWait bounds how long a shard waits at the witness for the
	// others at the first cell (at later cells, at most 30 s). Default
	// DefaultShardWait.
	ShardWait time.Duration
	// History, when set, records each cell's history, writes it and
	// checks it (see HistoryOptions). Default nil: none.
	History *HistoryOptions
}

// CellStart says which cell is about to run.
type CellStart struct {
	Index, Total       int // from 0, of all cells and repetitions
	Variant            string
	Clients            int
	Repetition, Repeat int // from 1
	// Server is the server the cell runs on as the plan names it (redis,
	// valkey, a path), "" for the topology's own.
	Server string
	// Live is fed by the cell's clients while it runs (warm-up included),
	// for progress and metrics; read it with Snapshot from any goroutine.
	Live *workloads.Live
}

// NewRunID returns a run id: UTC start time and 6 random hex digits.
func NewRunID() string {
	var b [3]byte
	_, _ = crand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// KeyPrefix is the prefix of every key of run id.
func KeyPrefix(runID string) string { return "lockbench:" + runID + ":" }

// Run executes p and returns its record. When ctx ends mid-run, Run stops
// within about a second and returns what was measured, marked interrupted,
// with a nil error. An error means nothing was measured. A plan with faults
// gets a fresh topology for every cell, so that no cell inherits the damage
// of the one before.
func Run(ctx context.Context, p plan.Plan, opts Options) (*record.Record, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if opts.RunID == "" {
		opts.RunID = NewRunID()
	}
	r := newRunning(p, opts)
	defer r.close(ctx)
	if err := r.open(ctx); err != nil {
		return nil, err
	}
	for _, c := range plannedCells(p, opts.Shard) {
		if ctx.Err() != nil {
			break
		}
		if err := r.step(ctx, c); err != nil {
			return nil, err
		}
	}
	return r.finish(ctx)
}

// plannedCell is one cell of a plan, in the order Run goes through them.
type plannedCell struct {
	index, total int // from 0, of all cells and repetitions
	repetition   int // from 1
	// server is the server binary the cell runs on (plan.Plan.Servers),
	// "" for the topology's own.
	server  string
	variant string
	// spec is the plan's workload at one client count, this shard's share
	// of it.
	spec workloads.Spec
}

// plannedCells lists p's cells in order: every repetition on every
// server of every variant at every client count, the clients of each
// shard's share.
func plannedCells(p plan.Plan, shard *workloads.Shard) []plannedCell {
	share := func(spec workloads.Spec) workloads.Spec { return spec }
	if shard != nil {
		share = shard.Apply
	}
	servers := serversOf(p)
	total := p.Repeat * len(servers) * len(p.Variants) * len(p.Clients)
	cells := make([]plannedCell, 0, total)
	for rep := 1; rep <= p.Repeat; rep++ {
		for _, server := range servers {
			for _, variant := range p.Variants {
				for _, whole := range p.Clients {
					spec := cellSpec(p.Workload, whole, share)
					cells = append(cells, plannedCell{index: len(cells), total: total, repetition: rep, server: server, variant: variant, spec: spec})
				}
			}
		}
	}
	return cells
}

// cellSpec is the workload at whole clients, share's part of them.
func cellSpec(workload workloads.Spec, whole int, share func(workloads.Spec) workloads.Spec) workloads.Spec {
	spec := workload
	spec.Clients = whole
	spec = share(spec)
	if spec.KeyPerClient {
		spec.Keys = whole // every shard's clients have a name of their own
	}
	return spec
}

// running is a run under way: its plan, the session its cells run on, the
// witness, and the record so far.
type running struct {
	p    plan.Plan
	opts Options
	// prefix is the prefix of the run's keys; cleanupPrefix that of the
	// keys a session removes when it closes: none for a shard but the
	// last to finish.
	prefix, cleanupPrefix string
	// sharded is a run of one shard of several.
	sharded bool
	// nodeFaults are faults the plan puts on nodes: a server they take
	// down was meant to go.
	nodeFaults bool
	wx         *witnessing // nil without a witness
	held       *claim      // the run's claim on its id (see claimRun)
	s          *session
	rec        *record.Record
}

// newRunning is a run of p about to start, its record begun.
func newRunning(p plan.Plan, opts Options) *running {
	r := &running{p: p, opts: opts, prefix: KeyPrefix(opts.RunID), rec: newRecord(p, opts)}
	// A shard leaves the keys to the last shard to finish, which only a
	// witness knows: the others may still use them. (Its cells also go
	// without the servers' cost, in step.)
	r.sharded = opts.Shard != nil && opts.Shard.Count > 1
	r.cleanupPrefix = r.prefix
	if r.sharded {
		r.cleanupPrefix = ""
	}
	r.nodeFaults = slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind.OnNode() })
	return r
}

// open dials the witness, opens the first session, checks that the faults
// fit it and that it is apart from the witness, and writes the topology
// into the record.
func (r *running) open(ctx context.Context) error {
	p, opts := r.p, r.opts
	if opts.Witness != nil {
		w, err := witness.Dial(ctx, *opts.Witness)
		if err != nil {
			return err
		}
		if r.wx, err = newWitnessing(w, p, opts.Shard, r.prefix, opts.ShardWait); err != nil {
			w.Close()
			return err
		}
	}
	s, err := openSession(ctx, p, serversOf(p)[0])
	if err != nil {
		return err
	}
	held, err := claimRun(ctx, s.topo, p.Client, opts.RunID, opts.Shard)
	switch {
	case errors.Is(err, ErrRunIDInUse):
		s.close(ctx, p.Client, "") // the keys are another run's too
		return err
	case err != nil:
		// A server that refuses the claim's write (at maxmemory, a
		// read-only replica) refuses the run's locks too: the cells
		// count those errors by kind, which says more than a refusal.
		held = nil
	}
	r.s, r.held = s, held
	if err := s.checkFaults(p.Faults, p.AllowDestructive); err != nil {
		return err
	}
	if r.wx != nil {
		if err := r.wx.w.CheckApart(ctx, s.addrs(), s.conns); err != nil {
			return err
		}
	}
	recordTopology(ctx, r.rec, s)
	if opts.OnTopology != nil {
		opts.OnTopology(s.topo, s.startup)
	}
	return nil
}

// newRecord is the head of the record of a run of p, before anything of
// the run starts.
func newRecord(p plan.Plan, opts Options) *record.Record {
	return &record.Record{
		Schema: record.SchemaVersion, Tool: "lockbench", RunID: opts.RunID,
		Started: time.Now().UTC(), Host: record.ThisHost(), Config: configOf(p), Shard: shardOf(opts.Shard),
	}
}

// recordTopology writes the topology of the session s into the head of
// rec.
func recordTopology(ctx context.Context, rec *record.Record, s *session) {
	rec.Config.Topology.Name = s.topo.Name()
	rec.Topology = record.TopologyInfo{Name: s.topo.Name(), Mode: string(s.topo.Access().Mode),
		Nodes: nodesOf(s.topo.Nodes(), s.products), Representative: s.topo.Representative(),
		ServerVersion: s.product(), StartupS: s.startup.Seconds(), CPUBudget: cpuBudgetOf(s.topo)}
}

// step runs the cell c and adds it to the record. An error (the witness
// refused this shard) ends the run without a record.
func (r *running) step(ctx context.Context, c plannedCell) error {
	n := c.spec.Clients
	live := &workloads.Live{}
	if r.opts.OnCell != nil {
		r.opts.OnCell(CellStart{Index: c.index, Total: c.total, Variant: c.variant, Clients: n, Repetition: c.repetition, Repeat: r.p.Repeat, Server: c.server, Live: live})
	}
	cell, err := r.measure(ctx, c, live)
	if err != nil {
		return err
	}
	if r.sharded {
		// The servers' counters count every shard's commands: not this
		// shard's cost.
		cell.Server = nil
	}
	cell.Topology, cell.Repetition, cell.Product = r.rec.Topology.Name, c.repetition, r.s.product()
	r.rec.Cells = append(r.rec.Cells, cell)
	// A server the plan's faults took down was meant to go.
	if err := r.s.answering(ctx); err != nil && r.rec.Failure == "" && !r.nodeFaults {
		r.rec.Failure = fmt.Sprintf("the Redis under test stopped answering during %s, %d clients: %v", c.variant, n, err)
	}
	return nil
}

// measure runs the cell c, on a fresh session when the plan has faults,
// with its oracle in memory or in the witness.
func (r *running) measure(ctx context.Context, c plannedCell, live *workloads.Live) (record.Cell, error) {
	p, n := r.p, c.spec.Clients
	if c.server != r.s.server || len(p.Faults) > 0 && c.index > 0 {
		if err := r.reopen(ctx, c.server); err != nil {
			return record.Cell{Variant: c.variant, Client: p.Client, Clients: n, Error: err.Error()}, nil
		}
	}
	cellPrefix := fmt.Sprintf("%sc%d:", r.prefix, c.index)
	keys := c.spec.Keys
	oracle := inMemory(keys, p)
	if r.wx != nil {
		oracle = r.wx.oracle(c.index, cellPrefix, keys, p)
	}
	cell, h := runCell(ctx, p, r.withMargins(c.spec, c.variant), r.s, c.variant, cellPrefix, live, oracle)
	r.keepHistory(h, c, &cell)
	if r.wx != nil && r.wx.refused != nil {
		return cell, r.wx.refused
	}
	return cell, nil
}

// reopen replaces the session with a fresh one on server; when that
// fails, with one that has nothing to close.
func (r *running) reopen(ctx context.Context, server string) error {
	r.s.close(ctx, r.p.Client, r.cleanupPrefix)
	s, err := openSession(ctx, r.p, server)
	if err != nil {
		r.s = &session{server: server} // nothing to close
		return err
	}
	r.s = s
	r.noteServer(s)
	return nil
}

// finish writes the tail of the record and, with a witness, leaves the
// record there: the last shard to finish removes the run's keys.
func (r *running) finish(ctx context.Context) (*record.Record, error) {
	r.rec.Interrupted = ctx.Err() != nil
	r.rec.Finished = time.Now().UTC()
	if r.wx != nil {
		last, err := r.wx.leave(ctx, r.rec)
		if err != nil {
			return nil, err
		}
		if last {
			r.cleanupPrefix = r.prefix
		}
	}
	return r.rec, nil
}

// close closes the session, removing the keys of cleanupPrefix, then the
// witness.
func (r *running) close(ctx context.Context) {
	if r.s != nil {
		r.s.close(ctx, r.p.Client, r.cleanupPrefix)
	}
	r.held.release(ctx) // after the cleanup
	if r.wx != nil {
		r.wx.w.Close()
	}
}

// runCell runs one variant with the load spec (p's workload at one client
// count) with keys under prefix, feeding live; and the cell's history, nil
// without one.
func runCell(ctx context.Context, p plan.Plan, spec workloads.Spec, s *session, variant string, prefix string, live *workloads.Live, oracle cellOracle) (record.Cell, *history.History) {
	topo, conns := s.topo, s.conns
	n := spec.Clients
	spec.Live = live
	spec.Faults = p.Faults
	spec.Ready = oracle.ready
	if slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind.OnNode() }) {
		spec.Follow = workloads.NewFollow() // how soon the clients follow a failover
	}
	counted := variants.NewCounted(conns[0])
	newLock := lockMaker(p, variant, prefix, counted, s.groups)
	base := record.Cell{Variant: variant, Client: p.Client, Clients: n, Keys: spec.Keys, Limit: p.Limit}
	// A driver's lock runs in driver processes of the cell's own, which
	// fail it when they cannot start, or break the protocol or exit
	// mid-cell; the run goes on with the next cell.
	var drivers *driverCell
	runCtx := ctx
	if m, ok := p.Driver(variant); ok {
		var err error
		if drivers, err = startDrivers(ctx, p, s, m, prefix, n); err != nil {
			base.Error = err.Error()
			return base, nil
		}
		defer drivers.close()
		newLock, spec.Renews = drivers.newLock, drivers.renews()
		var stopWatch func()
		runCtx, stopWatch = drivers.watch(ctx)
		defer stopWatch()
	}
	// Redis' own counters, read over the measured phase (serverMeter),
	// say what the cell cost the servers.
	stats := openMeter(ctx, topo.Access(), topo.Nodes(), p.Client, slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind.NamesNode() }))
	defer stats.close()
	// The fault schedule starts with the measured phase and ends with the
	// cell; a fault at 0 that takes a node or a link away has acted before
	// the measured phase's clients begin (faults.Start).
	faultCtx, stopFaults := context.WithCancel(ctx)
	var (
		schedule  *faults.Running // set when the measured phase began
		atMeasure int64
		measureAt time.Time
		cpuAt     time.Duration // lockbench's CPU when the measured phase began
	)
	out, err := workloads.Run(runCtx, spec, newLock, oracle, func() {
		atMeasure, cpuAt = counted.Commands(), procfs.SelfCPU()
		if drivers != nil {
			drivers.beginMeasure()
		}
		stats.begin(ctx)
		measureAt = time.Now()
		schedule = faults.Start(faultCtx, faults.Schedule{Faults: p.Faults, Ctrl: control(p, topo), Net: s.net, Start: measureAt,
			BeforeNode: stats.BeforeNode, Promoted: spec.Follow.Mark, Arrived: spec.Follow.Arrived})
	})
	clientCPU := procfs.SelfCPU() - cpuAt
	if drivers != nil {
		drivers.endMeasure()
	}
	stopFaults()
	// The schedule restores what it paused or cut before it returns: the
	// next cell and the cleanup must find every node answering.
	var events []measure.FaultEvent
	if schedule != nil {
		events = schedule.Wait()
	}
	if drivers != nil && err == nil {
		err = drivers.failed()
	}
	if err != nil {
		base.Error = err.Error()
		return base, nil
	}
	out.Measured.Commands = counted.Commands() - atMeasure
	report, witnessed := oracle.final(ctx)
	cell, err := record.NewCell(out.CellSummary, report)
	cell.Witness = witnessed
	if err != nil {
		base.Error = err.Error()
		return base, out.History
	}
	cell.Variant, cell.Client, cell.Clients, cell.Keys, cell.Limit = base.Variant, base.Client, base.Clients, base.Keys, base.Limit
	if !measureAt.IsZero() {
		cell.ClientCPUSeconds = clientCPU.Seconds()
	}
	cell.Fencing = fencing(variant)
	cell.Settings = variants.Settings(variant, variants.Config{Conn: counted, Prefix: prefix, TTL: p.TTL,
		Retry: p.Retry, AcquireTimeout: p.AcquireTimeout})
	cell.Faults = append(append(events, out.FaultEvents...), followEvents(spec.Follow, measureAt)...)
	slices.SortFunc(cell.Faults, func(a, b measure.FaultEvent) int { return cmp.Compare(a.AtS, b.AtS) })
	// Not after an interrupt: a stop must not wait on a server. A
	// driver's commands go on connections of its own: lockbench counts
	// none of them.
	if ctx.Err() == nil && topo.Representative() && (cell.Commands > 0 || drivers != nil && cell.Acquisitions > 0) {
		cell.Server, cell.ServerNote = stats.finish(ctx, cell.Acquisitions)
	}
	if drivers != nil { // after the servers' figures: record closes the driver's processes
		cell.Driver, cell.Fencing, cell.Settings = drivers.record(), drivers.fencing(), drivers.settings(p.TTL)
	}
	return cell, out.History
}

// lockMaker makes the cell's locks of variant, with keys under prefix, on
// the connections of their client groups: every command they send counts
// in counted, which wraps the first group's first connection.
func lockMaker(p plan.Plan, variant, prefix string, counted *variants.Counted, groups [][]clients.Client) workloads.NewLock {
	return func(env workloads.ClientEnv) (variants.Lock, error) {
		conn, all := countedConns(counted, groups[env.Index%len(groups)])
		return variants.New(variant, variants.Config{
			Conn: conn, Conns: all, Prefix: prefix, TTL: p.TTL, Retry: p.Retry, AcquireTimeout: p.AcquireTimeout,
			Limit: p.Limit, Clock: env.Clock, OnAttempt: env.OnAttempt, AtStep: env.AtStep, Note: env.Note, WaitStrict: p.WaitStrict,
		})
	}
}

// DeleteKeys removes every key under prefix, found with SCAN, and returns
// how many it deleted. It never touches another key.
func DeleteKeys(ctx context.Context, conn variants.Conn, prefix string) (int64, error) {
	var deleted int64
	err := variants.ScanPrefix(ctx, conn, prefix, func(key string) error {
		n, err := conn.Do(ctx, variants.Cmd("DEL", key))
		if err != nil {
			return fmt.Errorf("runner: delete %s: %w", key, err)
		}
		if n == int64(1) {
			deleted++
		}
		return nil
	})
	return deleted, err
}
