package runner

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/results"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/witness"
	"github.com/lockbench/lockbench/workloads"
)

// cleanupTimeout bounds the removal of a run's keys, which runs even after
// an interrupt.
const cleanupTimeout = 5 * time.Second

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
}

// CellStart says which cell is about to run.
type CellStart struct {
	Index, Total       int // from 0, of all cells and repetitions
	Variant            string
	Clients            int
	Repetition, Repeat int // from 1
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
func Run(ctx context.Context, p plan.Plan, opts Options) (*results.Record, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if opts.RunID == "" {
		opts.RunID = NewRunID()
	}
	rec := &results.Record{
		Schema: results.SchemaVersion, Tool: "lockbench", RunID: opts.RunID,
		Started: time.Now().UTC(), Host: results.ThisHost(), Config: p, Shard: opts.Shard,
	}
	share := func(spec workloads.Spec) workloads.Spec { return spec }
	if opts.Shard != nil {
		share = opts.Shard.Apply
	}
	prefix := KeyPrefix(opts.RunID)
	var wx *witnessing
	if opts.Witness != nil {
		w, err := witness.Dial(ctx, *opts.Witness)
		if err != nil {
			return nil, err
		}
		defer w.Close()
		if wx, err = newWitnessing(w, p, opts.Shard, prefix, opts.ShardWait); err != nil {
			return nil, err
		}
	}
	s, err := openSession(ctx, p)
	if err != nil {
		return nil, err
	}
	// A shard leaves the keys to the last shard to finish, which only a
	// witness knows: the others may still use them. (Its cells also go
	// without the servers' cost, below.)
	sharded := opts.Shard != nil && opts.Shard.Count > 1
	cleanupPrefix := prefix
	if sharded {
		cleanupPrefix = ""
	}
	defer func() { s.close(ctx, p.Client, cleanupPrefix) }()
	if err := s.checkFaults(p.Faults, p.AllowDestructive); err != nil {
		return nil, err
	}
	if wx != nil {
		if err := wx.w.CheckApart(ctx, s.addrs(), s.conns); err != nil {
			return nil, err
		}
	}
	rec.Config.Topology = p.Topology.Redacted()
	rec.Config.Topology.Name = s.topo.Name()
	rec.Topology = results.TopologyInfo{Name: s.topo.Name(), Mode: string(s.topo.Access().Mode),
		Nodes: s.topo.Nodes(), Representative: s.topo.Representative(),
		ServerVersion: serverVersion(ctx, s.conns[0]), StartupS: s.startup.Seconds()}
	if opts.OnTopology != nil {
		opts.OnTopology(s.topo, s.startup)
	}

	nodeFaults := slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind.OnNode() })
	total, index := p.Repeat*len(p.Variants)*len(p.Clients), 0
	for rep := 1; rep <= p.Repeat; rep++ {
		for _, variant := range p.Variants {
			for _, whole := range p.Clients {
				if ctx.Err() != nil {
					break
				}
				spec := p.Workload
				spec.Clients = whole
				spec = share(spec)
				n := spec.Clients
				live := &workloads.Live{}
				if opts.OnCell != nil {
					opts.OnCell(CellStart{Index: index, Total: total, Variant: variant, Clients: n, Repetition: rep, Repeat: p.Repeat, Live: live})
				}
				var cell results.Cell
				if len(p.Faults) > 0 && index > 0 {
					s.close(ctx, p.Client, cleanupPrefix)
					if s, err = openSession(ctx, p); err != nil {
						s = &session{} // nothing to close
						cell = results.Cell{Variant: variant, Client: p.Client, Clients: n, Error: err.Error()}
					}
				}
				if cell.Error == "" {
					cellPrefix := fmt.Sprintf("%sc%d:", prefix, index)
					keys := spec.Keys
					if spec.KeyPerClient {
						keys = whole // every shard's clients have a name of their own
					}
					oracle := inMemory(keys, p)
					if wx != nil {
						oracle = wx.oracle(index, cellPrefix, keys, p)
					}
					spec.Keys = keys
					cell = runCell(ctx, p, spec, s, variant, cellPrefix, live, oracle)
					if wx != nil && wx.refused != nil {
						return nil, wx.refused
					}
				}
				if sharded {
					// The servers' counters count every shard's commands:
					// not this shard's cost.
					cell.Server = nil
				}
				cell.Topology, cell.Repetition = rec.Topology.Name, rep
				rec.Cells = append(rec.Cells, cell)
				// A server the plan's faults took down was meant to go.
				if err := s.answering(ctx); err != nil && rec.Failure == "" && !nodeFaults {
					rec.Failure = fmt.Sprintf("the Redis under test stopped answering during %s, %d clients: %v", variant, n, err)
				}
				index++
			}
		}
	}
	rec.Interrupted = ctx.Err() != nil
	rec.Finished = time.Now().UTC()
	if wx != nil {
		last, err := wx.leave(ctx, rec)
		if err != nil {
			return nil, err
		}
		if last {
			cleanupPrefix = prefix
		}
	}
	return rec, nil
}

// session is a topology in use and the clients connected to it, through
// a proxy when the plan has network faults.
type session struct {
	topo    topologies.Topology
	net     *faults.Network
	conns   []clients.Client
	startup time.Duration
}

// openSession opens the plan's topology and connects its clients.
func openSession(ctx context.Context, p plan.Plan) (*session, error) {
	began := time.Now()
	topo, err := topologies.Open(ctx, p.Topology)
	if err != nil {
		return nil, err
	}
	s := &session{topo: topo}
	access := topo.Access()
	if slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind.OnNetwork() }) {
		if s.net, access, err = faults.NewNetwork(access, topo.Nodes()); err != nil {
			topo.Close()
			return nil, err
		}
	}
	s.conns, err = clients.Connect(ctx, access, clients.Options{Library: p.Client, PoolSize: 2*slices.Max(p.Clients) + 8})
	if err != nil {
		s.closeNet()
		topo.Close()
		return nil, err
	}
	s.startup = time.Since(began)
	return s, nil
}

// answerTimeout bounds the check that the servers still answer after a
// cell.
const answerTimeout = 2 * time.Second

// answering checks that every connection's server still answers a PING;
// not after an interrupt, which must not wait on a server.
func (s *session) answering(ctx context.Context) error {
	if ctx.Err() != nil || s.topo == nil {
		return nil
	}
	for _, c := range s.conns {
		pctx, cancel := context.WithTimeout(ctx, answerTimeout)
		_, err := c.Do(pctx, variants.Bare("PING"))
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// addrs are the addresses of the topology's nodes and of its access.
func (s *session) addrs() []string {
	var out []string
	for _, n := range s.topo.Nodes() {
		out = append(out, n.Endpoint.Addr)
	}
	for _, ep := range s.topo.Access().Endpoints {
		out = append(out, ep.Addr)
	}
	return out
}

func (s *session) closeNet() {
	if s.net != nil {
		s.net.Close()
	}
}

// close removes the run's keys (none when prefix is empty), disconnects
// and stops what the topology started.
func (s *session) close(ctx context.Context, library, prefix string) {
	if s.topo == nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if prefix != "" {
		_ = cleanup(cctx, s.topo.Access(), s.conns, library, prefix)
	}
	for _, c := range s.conns {
		c.Close()
	}
	s.closeNet()
	_ = s.topo.Close()
}

// checkFaults refuses faults the topology cannot take: on nodes it does not
// have, or on servers lockbench did not start — there, with
// allowDestructive, only a pause with a time.
func (s *session) checkFaults(fs []faults.Fault, allowDestructive bool) error {
	onNode := slices.ContainsFunc(fs, func(f faults.Fault) bool { return f.Kind.OnNode() })
	if !onNode {
		return faults.Check(fs, 0, nil)
	}
	if _, err := topologies.ControllerOf(s.topo); err != nil {
		if !allowDestructive {
			return fmt.Errorf("%w: %w: %w (node faults run on topologies lockbench starts; on another server, --allow-destructive allows a pause with for=, sent as CLIENT PAUSE, which every client of that server waits out)",
				faults.ErrBadFault, topologies.ErrDestructive, err)
		}
		for _, f := range fs {
			if f.Kind.OnNode() && (f.Kind != faults.Pause || f.For <= 0) {
				return fmt.Errorf("%w: %s: on a server lockbench did not start only a pause with for= is allowed, even with --allow-destructive", faults.ErrBadFault, f)
			}
		}
	}
	var names []string
	for _, n := range s.topo.Nodes() {
		names = append(names, n.Name)
	}
	return faults.Check(fs, 0, names)
}

// control is the node control faults act through (nil without node
// faults; checked before the run).
func control(p plan.Plan, topo topologies.Topology) topologies.Controller {
	if p.AllowDestructive {
		ctrl, _ := topologies.DestructiveControl(topo)
		return ctrl
	}
	ctrl, _ := topologies.ControllerOf(topo)
	return ctrl
}

// runCell runs one variant with the load spec (p's workload at one client
// count) with keys under prefix, feeding live.
func runCell(ctx context.Context, p plan.Plan, spec workloads.Spec, s *session, variant string, prefix string, live *workloads.Live, oracle cellOracle) results.Cell {
	topo, conns := s.topo, s.conns
	n := spec.Clients
	spec.Live = live
	spec.Faults = p.Faults
	spec.Ready = oracle.ready
	counted := variants.NewCounted(conns[0])
	all := []variants.Conn{counted}
	for _, c := range conns[1:] {
		all = append(all, counted.Wrap(c))
	}
	newLock := func(env workloads.ClientEnv) (variants.Lock, error) {
		return variants.New(variant, variants.Config{
			Conn: counted, Conns: all, Prefix: prefix, TTL: p.TTL, Retry: p.Retry, AcquireTimeout: p.AcquireTimeout,
			Limit: p.Limit, Clock: env.Clock, OnAttempt: env.OnAttempt, AtStep: env.AtStep, Note: env.Note, WaitStrict: p.WaitStrict,
		})
	}
	// Redis' own counters, read over the measured phase (serverMeter),
	// say what the cell cost the servers.
	var atMeasure int64
	stats := openMeter(ctx, topo.Access(), topo.Nodes(), p.Client, slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind.NamesNode() }))
	defer stats.close()
	// The fault schedule starts with the measured phase and ends with the
	// cell.
	faultCtx, stopFaults := context.WithCancel(ctx)
	faultEvents := make(chan []faults.Event, 1)
	var scheduled atomic.Bool
	out, err := workloads.Run(ctx, spec, newLock, oracle, func() {
		atMeasure = counted.Commands()
		stats.begin(ctx)
		ctrl := control(p, topo)
		scheduled.Store(true)
		go func() {
			faultEvents <- faults.Run(faultCtx, faults.Schedule{Faults: p.Faults, Ctrl: ctrl, Net: s.net, Start: time.Now(), BeforeNode: stats.BeforeNode})
		}()
	})
	stopFaults()
	// The schedule restores what it paused or cut before it returns: the
	// next cell and the cleanup must find every node answering.
	var events []faults.Event
	if scheduled.Load() {
		events = <-faultEvents
	}
	base := results.Cell{Variant: variant, Client: p.Client, Clients: n, Keys: spec.Keys, Limit: p.Limit}
	if err != nil {
		base.Error = err.Error()
		return base
	}
	out.Measured.Commands = counted.Commands() - atMeasure
	report, witnessed := oracle.final(ctx)
	cell, err := results.NewCell(out, report)
	cell.Witness = witnessed
	if err != nil {
		base.Error = err.Error()
		return base
	}
	cell.Variant, cell.Client, cell.Clients, cell.Keys, cell.Limit = base.Variant, base.Client, base.Clients, base.Keys, base.Limit
	cell.Settings = variants.Settings(variant, variants.Config{Conn: counted, Prefix: prefix, TTL: p.TTL,
		Retry: p.Retry, AcquireTimeout: p.AcquireTimeout})
	cell.Faults = append(events, out.FaultEvents...)
	slices.SortFunc(cell.Faults, func(a, b faults.Event) int { return cmp.Compare(a.AtS, b.AtS) })
	// Not after an interrupt: a stop must not wait on a server.
	if ctx.Err() == nil && topo.Representative() && cell.Commands > 0 {
		cell.Server, cell.ServerNote = stats.finish(ctx, cell.Acquisitions)
	}
	return cell
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

// serverVersion asks the server its version; "" when it will not say.
func serverVersion(ctx context.Context, conn variants.Conn) string {
	v, _ := infoField(ctx, conn, "server", "redis_version")
	return v
}
