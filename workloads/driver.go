package workloads

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
)

// maxStripes bounds how many recorders the clients of a cell share: a
// client records into the recorder of its stripe (client index mod
// stripes), so that memory stays bounded with thousands of clients, through
// a tally of its own (metrics.Tally), which takes the stripe's mutex once
// per batch of events, so that the clients of a stripe seldom contend. An
// open loop's schedule has a recorder of its own besides.
const maxStripes = 16

// tallyBudget bounds the events the tallies of a cell's clients keep in
// all (4 bytes each: 2 MB); each client's tally keeps its share, from
// minTallyEvents to maxTallyEvents (4 KB, about 200 cycles of a closed
// loop: the more, the fewer of the histograms' cache lines per cycle).
const (
	tallyBudget    = 1 << 19
	minTallyEvents = 64
	maxTallyEvents = 1024
)

// Run drives the workload until its duration or ops are done or ctx ends,
// and returns what it measured. Every lease taken is released before Run
// returns. atMeasure, when not nil, is called once when the measured phase
// starts.
func Run(ctx context.Context, spec Spec, newLock NewLock, o oracle.Oracle, atMeasure func()) (Outcome, error) {
	if err := spec.Validate(); err != nil {
		return Outcome{}, err
	}
	if len(spec.Stages) > 0 {
		spec.Duration = StagesDuration(spec.Stages)
	}
	d, err := newDriver(ctx, spec, newLock, o)
	if err != nil {
		return Outcome{}, err
	}
	defer d.closeLocks()
	if spec.Ready != nil {
		if err := spec.Ready(ctx); err != nil {
			return Outcome{}, err
		}
	}
	d.begin()
	spec.Live.attach(o)

	// The end is a cancel, not a context deadline: a client library that
	// turns a deadline into a socket timeout would report the commands in
	// flight at the end as errors.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if spec.Duration > 0 {
		defer time.AfterFunc(time.Until(d.measureAt.Add(spec.Duration)), stop).Stop()
	}
	startMeasuring := func() {
		if atMeasure != nil {
			atMeasure()
		}
		d.measuring.Store(true)
	}
	phaseDone := make(chan struct{})
	if spec.Warmup == 0 {
		startMeasuring()
		close(phaseDone)
	}
	phase := time.AfterFunc(time.Until(d.measureAt), func() {
		if spec.Warmup > 0 {
			defer close(phaseDone)
			startMeasuring()
		}
	})
	sampled := d.sampleOracle(runCtx)
	if spec.Open() {
		d.runOpen(runCtx)
	} else {
		d.runClosed(runCtx)
	}
	for _, c := range d.clients {
		c.closeRelease()
	}
	if !phase.Stop() || spec.Warmup == 0 {
		<-phaseDone
	}
	stop()
	series := <-sampled

	end := time.Now()
	if deadline := d.measureAt.Add(spec.Duration); spec.Ops == 0 && end.After(deadline) {
		end = deadline
	}
	perClient := make([]int64, len(d.clients))
	for i, c := range d.clients {
		perClient[i] = c.acquisitions
	}
	out := Outcome{CellSummary: metrics.CellSummary{
		Measured:     metrics.Merge(d.measured, perClient),
		Warmup:       metrics.Merge(d.warm, nil),
		Handoff:      o.Handoff(),
		Elapsed:      max(end.Sub(d.measureAt), 0),
		Offered:      d.offered.Load(),
		Interrupted:  ctx.Err() != nil,
		ClockOffsets: d.offsets,
	}, FaultEvents: d.events}
	if margins, ok := metrics.MergeMargins(d.margins); ok {
		margins.TTL = spec.LeaseTTL
		out.Margins = &margins
	}
	if d.hist != nil {
		out.History = d.takeHistory()
	}
	out.Measured.Series = withOracle(out.Measured.Series, series)
	return out, nil
}

// driver is the state the clients of one cell share.
type driver struct {
	spec      Spec
	names     []string
	oracle    oracle.Oracle
	clients   []*client
	stripes   int                 // the clients' recorders per phase
	warm      []*metrics.Recorder // per stripe, then the schedule's
	measured  []*metrics.Recorder // per stripe, then the schedule's
	epoch     time.Time           // when the driver was made: the origin of now
	measureAt time.Time
	measuring atomic.Bool
	remaining atomic.Int64 // ops left when spec.Ops > 0
	offered   atomic.Int64 // open-loop arrivals scheduled in the measured phase
	offsets   []time.Duration
	// clientFaults are the holder and step faults of the cell, events
	// what they did.
	clientFaults []*clientFault
	eventsMu     sync.Mutex
	events       []measure.FaultEvent
	// hist records the cell's history, nil for none; histGate closes it
	// to renewals once it is taken; margins are the stripes' margins, nil
	// when the locks do not expire.
	hist     *history.Recorder
	histGate histGate
	margins  []*metrics.Margins
	// processes are the processes apart the clients' locks live in, by
	// name (ProcessHolder); nil when they all live in this one.
	processes map[string]*process
	// pickKey picks each acquisition's name by Spec.KeyDist; nil:
	// uniformly.
	pickKey func(*rand.Rand) int
}

func newDriver(ctx context.Context, spec Spec, newLock NewLock, o oracle.Oracle) (*driver, error) {
	spec.Keys = max(spec.Keys, 1)
	if spec.KeyPerClient {
		spec.Keys = max(spec.Keys, spec.FirstClient+spec.Clients)
	}
	d := &driver{spec: spec, oracle: o, clientFaults: newClientFaults(spec.Faults)}
	for i := range spec.Keys {
		d.names = append(d.names, LockName(i))
	}
	d.pickKey = spec.KeyDist.picker(spec.Keys)
	d.remaining.Store(spec.Ops)
	created := time.Now()
	d.epoch = created
	tallyEvents := min(max(tallyBudget/max(spec.Clients, 1), minTallyEvents), maxTallyEvents)
	seed := rand.Uint64()
	d.stripes = min(spec.Clients, maxStripes)
	for range d.stripes {
		d.margins = append(d.margins, d.newMargins())
	}
	for i := range spec.Clients {
		if err := ctx.Err(); err != nil { // a signal while many clients are made
			d.closeLocks()
			return nil, fmt.Errorf("workloads: stopped creating clients at %d of %d: %w", i, spec.Clients, err)
		}
		c := &client{d: d, index: i, process: spec.FirstClient + i, stripe: i % d.stripes, rnd: rand.New(rand.NewPCG(seed, uint64(i)))}
		clock := spec.Clocks.NewClock(c.rnd, created)
		lock, err := newLock(ClientEnv{Index: i, Clock: clock, OnAttempt: c.attempt, AtStep: c.atStep, Note: c.note})
		if err != nil {
			d.closeLocks()
			return nil, fmt.Errorf("workloads: client %d: %w", i, err)
		}
		if spec.Clocks.Skew != (Skew{}) {
			d.offsets = append(d.offsets, clock.Offset()) // as newLock left it (ShareOffset)
		}
		c.lock = lock
		if h, ok := lock.(ProcessHolder); ok {
			c.proc = d.processOf(h, c)
		}
		if o, ok := lock.(variants.OptionsAcquirer); ok && spec.HistoryEvents > 0 {
			c.options = o // its renewals are recorded
		}
		c.margins = d.margins[c.stripe]
		c.live = spec.Live.Shard(c.stripe)
		c.tally = metrics.NewTally(c.margins, tallyEvents)
		d.clients = append(d.clients, c)
	}
	return d, nil
}

// begin starts the phases' clock and recorders, once every client is
// ready.
func (d *driver) begin() {
	start := time.Now()
	d.measureAt = start.Add(d.spec.Warmup)
	recorders := d.stripes
	if d.spec.Open() {
		recorders++ // the schedule's
	}
	for range recorders {
		d.warm = append(d.warm, metrics.NewRecorder(start))
		d.measured = append(d.measured, metrics.NewRecorder(d.measureAt))
	}
	for _, c := range d.clients {
		c.tally.To(d.warm[c.stripe])
	}
	d.hist = d.newHistory()
}

// now reads the machine's monotonic clock, as a time: the driver's epoch
// plus the monotonic time since, at about half the cost of time.Now, which
// reads the wall clock too. The times the workload takes are only compared
// with each other and subtracted from each other (and from the oracle's
// and the recorders' times, all from time.Now), which Go does on the
// monotonic clock: the same figures as with time.Now.
func (d *driver) now() time.Time { return d.epoch.Add(time.Since(d.epoch)) }

// closeLocks closes the clients' locks that hold resources of their own.
func (d *driver) closeLocks() {
	for _, c := range d.clients {
		if closer, ok := c.lock.(io.Closer); ok {
			_ = closer.Close()
		}
	}
}

// recorder is the recorder of stripe for a cycle that started at start.
func (d *driver) recorder(stripe int, start time.Time) *metrics.Recorder {
	if start.Before(d.measureAt) {
		return d.warm[stripe]
	}
	return d.measured[stripe]
}

// sampleOracle reads the oracle at the end of every second of the measured
// phase, until ctx ends, and sends the samples: new overlaps in the second
// and the holders at its end.
func (d *driver) sampleOracle(ctx context.Context) <-chan []measure.Second {
	out := make(chan []measure.Second, 1)
	go func() {
		var samples []measure.Second
		var before int64
		next := d.measureAt
		for {
			next = next.Add(time.Second)
			t := time.NewTimer(time.Until(next))
			select {
			case <-ctx.Done():
				t.Stop()
				out <- samples
				return
			case <-t.C:
			}
			rep := d.oracle.Report()
			samples = append(samples, measure.Second{T: len(samples), Overlaps: rep.Overlaps - before, Holders: rep.Holders})
			before = rep.Overlaps
		}
	}()
	return out
}

// withOracle adds the oracle's samples to a series.
func withOracle(series, samples []measure.Second) []measure.Second {
	for i, s := range samples {
		if i == len(series) {
			series = append(series, measure.Second{T: i})
		}
		series[i].Overlaps, series[i].Holders = s.Overlaps, s.Holders
	}
	return series
}

// runClosed runs every client in its own loop until ctx ends or the ops are
// done.
func (d *driver) runClosed(ctx context.Context) {
	var wg sync.WaitGroup
	for _, c := range d.clients {
		wg.Go(func() {
			var began time.Time
			defer func() {
				c.stopWaiting(time.Now())
				c.tally.Flush()
			}()
			for ctx.Err() == nil && !c.crashed.Load() {
				var more bool
				if began, more = c.step(ctx, began); !more {
					return
				}
			}
		})
	}
	wg.Wait()
}

// step is one turn of a client's closed loop: a cycle and the think after
// it. began is when the turn starts, zero to read the clock; step returns
// when the next turn starts (zero when a think or a failed cycle comes
// between: read the clock then), and false when the ops ran out.
func (c *client) step(ctx context.Context, began time.Time) (next time.Time, more bool) {
	d := c.d
	// Out of ops: this client is done; the others finish the acquisitions
	// they started.
	if d.measuring.Load() && d.spec.Ops > 0 && d.remaining.Add(-1) < 0 {
		return time.Time{}, false
	}
	if began.IsZero() {
		began = d.now()
	}
	goOn, end := c.cycle(ctx, began, began)
	if !goOn {
		return time.Time{}, true
	}
	if think := d.spec.Think.Sample(c.rnd); think > 0 {
		c.stopWaiting(d.now())
		c.sleep(ctx, think, nil)
		return time.Time{}, true
	}
	return end, true
}

// client is one simulated client: its lock, its stripe and its randomness.
type client struct {
	d             *driver
	index, stripe int
	process       int // in the history: FirstClient + index
	lock          variants.Lock
	options       variants.OptionsAcquirer // lock, when renewals are recorded; else nil
	tally         *metrics.Tally           // the client's events, to the current cycle's recorder (and the margins)
	live          *LiveShard               // the client's shard of Spec.Live, nil for none
	rnd           *rand.Rand
	timer         *time.Timer
	release       *releaseContext  // nil until the first release, and after one that timed out
	acquisitions  int64            // in the measured phase, for fairness
	margins       *metrics.Margins // the stripe's, nil when the locks do not expire
	lastBusy      time.Time        // when the latest busy try ended (margins)
	// key is the resource of the current acquire; waiting whether the
	// oracle was told that the client waits for it (see stopWaiting).
	key     int
	waiting bool
	// crashed is set when a fault killed the client; frozenUntil (Unix
	// nanoseconds) while a holder pause lasts. Its renewals read both.
	crashed     atomic.Bool
	frozenUntil atomic.Int64
	// proc is the process apart the client's lock lives in
	// (ProcessHolder), nil for lockbench's own.
	proc *process
}

// note counts a variant's own happening in the recorder of the phase it
// happened in; a variant may call it from any goroutine.
func (c *client) note(name string) { c.d.recorder(c.stripe, time.Now()).Note(name) }

// attempt counts a try at acquiring; the lock calls it from Acquire. Only
// a busy try is counted in the per-second series, so only it reads the
// clock; the first busy try of an acquire starts the client's wait for
// the resource (oracle.Oracle.Waiting).
func (c *client) attempt(err error) {
	if err != nil && isBusy(err) {
		at := c.d.now()
		c.lastBusy = at
		c.tally.AttemptedBusy(at)
		c.live.BusyTry()
		if !c.waiting {
			c.waiting = true
			c.d.oracle.WaitingAt(c.key, at)
		}
		return
	}
	c.tally.Attempted()
}
