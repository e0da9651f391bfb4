package workloads

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/variants"
)

// maxShards bounds how many recorders the clients of a cell share: a client
// records into the recorder of its shard (client index mod shards), so that
// memory stays bounded with thousands of clients while a few clients never
// contend for a recorder.
const maxShards = 16

// Run drives the workload until its duration or ops are done or ctx ends,
// and returns what it measured. Every lease taken is released before Run
// returns. atMeasure, when not nil, is called once when the measured phase
// starts.
func Run(ctx context.Context, spec Spec, newLock NewLock, oracle Oracle, atMeasure func()) (Outcome, error) {
	if err := spec.Validate(); err != nil {
		return Outcome{}, err
	}
	if len(spec.Stages) > 0 {
		spec.Duration = StagesDuration(spec.Stages)
	}
	d, err := newDriver(ctx, spec, newLock, oracle)
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
	spec.Live.attach(oracle)

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
	out := Outcome{
		Measured:     metrics.Merge(d.measured, perClient),
		Warmup:       metrics.Merge(d.warm, nil),
		Handoff:      oracle.Handoff(),
		Elapsed:      max(end.Sub(d.measureAt), 0),
		Offered:      d.offered.Load(),
		Interrupted:  ctx.Err() != nil,
		ClockOffsets: d.offsets,
		FaultEvents:  d.events,
	}
	out.Measured.Series = withOracle(out.Measured.Series, series)
	return out, nil
}

// driver is the state the clients of one cell share.
type driver struct {
	spec      Spec
	names     []string
	oracle    Oracle
	clients   []*client
	warm      []*metrics.Recorder // per shard
	measured  []*metrics.Recorder // per shard
	measureAt time.Time
	measuring atomic.Bool
	remaining atomic.Int64 // ops left when spec.Ops > 0
	offered   atomic.Int64 // open-loop arrivals scheduled in the measured phase
	offsets   []time.Duration
	// clientFaults are the holder and step faults of the cell, events
	// what they did.
	clientFaults []*clientFault
	eventsMu     sync.Mutex
	events       []faults.Event
}

func newDriver(ctx context.Context, spec Spec, newLock NewLock, oracle Oracle) (*driver, error) {
	spec.Keys = max(spec.Keys, 1)
	if spec.KeyPerClient {
		spec.Keys = max(spec.Keys, spec.FirstClient+spec.Clients)
	}
	d := &driver{spec: spec, oracle: oracle, clientFaults: newClientFaults(spec.Faults)}
	for i := range spec.Keys {
		d.names = append(d.names, LockName(i))
	}
	d.remaining.Store(spec.Ops)
	created := time.Now()
	seed := rand.Uint64()
	shards := min(spec.Clients, maxShards)
	for i := range spec.Clients {
		if err := ctx.Err(); err != nil { // a signal while many clients are made
			d.closeLocks()
			return nil, fmt.Errorf("workloads: stopped creating clients at %d of %d: %w", i, spec.Clients, err)
		}
		c := &client{d: d, index: i, shard: i % shards, rnd: rand.New(rand.NewPCG(seed, uint64(i)))}
		clock := spec.Clocks.NewClock(c.rnd, created)
		if spec.Clocks.Skew != (Skew{}) {
			d.offsets = append(d.offsets, clock.Offset())
		}
		lock, err := newLock(ClientEnv{Index: i, Clock: clock, OnAttempt: c.attempt, AtStep: c.atStep, Note: c.note})
		if err != nil {
			d.closeLocks()
			return nil, fmt.Errorf("workloads: client %d: %w", i, err)
		}
		c.lock = lock
		d.clients = append(d.clients, c)
	}
	return d, nil
}

// begin starts the phases' clock and recorders, once every client is
// ready.
func (d *driver) begin() {
	start := time.Now()
	d.measureAt = start.Add(d.spec.Warmup)
	for range min(len(d.clients), maxShards) {
		d.warm = append(d.warm, metrics.NewRecorder(start))
		d.measured = append(d.measured, metrics.NewRecorder(d.measureAt))
	}
	for _, c := range d.clients {
		c.rec = d.warm[c.shard]
	}
}

// closeLocks closes the clients' locks that hold resources of their own.
func (d *driver) closeLocks() {
	for _, c := range d.clients {
		if closer, ok := c.lock.(io.Closer); ok {
			_ = closer.Close()
		}
	}
}

// recorder is the recorder of shard for a cycle that started at start.
func (d *driver) recorder(shard int, start time.Time) *metrics.Recorder {
	if start.Before(d.measureAt) {
		return d.warm[shard]
	}
	return d.measured[shard]
}

// sampleOracle reads the oracle at the end of every second of the measured
// phase, until ctx ends, and sends the samples: new overlaps in the second
// and the holders at its end.
func (d *driver) sampleOracle(ctx context.Context) <-chan []metrics.Second {
	out := make(chan []metrics.Second, 1)
	go func() {
		var samples []metrics.Second
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
			samples = append(samples, metrics.Second{T: len(samples), Overlaps: rep.Overlaps - before, Holders: rep.Holders})
			before = rep.Overlaps
		}
	}()
	return out
}

// withOracle adds the oracle's samples to a series.
func withOracle(series, samples []metrics.Second) []metrics.Second {
	for i, s := range samples {
		if i == len(series) {
			series = append(series, metrics.Second{T: i})
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
			for ctx.Err() == nil && !c.crashed.Load() {
				// Out of ops: this client is done; the others finish the
				// acquisitions they started.
				if d.measuring.Load() && d.spec.Ops > 0 && d.remaining.Add(-1) < 0 {
					return
				}
				began := time.Now()
				if c.cycle(ctx, began, began) {
					c.sleep(ctx, d.spec.Think.Sample(c.rnd), nil)
				}
			}
		})
	}
	wg.Wait()
}

// client is one simulated client: its lock, its shard and its randomness.
type client struct {
	d            *driver
	index, shard int
	lock         variants.Lock
	rec          *metrics.Recorder // the current cycle's recorder, also used by attempt
	rnd          *rand.Rand
	timer        *time.Timer
	acquisitions int64 // in the measured phase, for fairness
	// crashed is set when a fault killed the client; frozenUntil (Unix
	// nanoseconds) while a holder pause lasts. Its renewals read both.
	crashed     atomic.Bool
	frozenUntil atomic.Int64
}

// note counts a variant's own happening in the recorder of the phase it
// happened in; a variant may call it from any goroutine.
func (c *client) note(name string) { c.d.recorder(c.shard, time.Now()).Note(name) }

// attempt counts a try at acquiring; the lock calls it from Acquire.
func (c *client) attempt(err error) {
	now := time.Now()
	c.rec.Add(now, metrics.Attempt)
	if err != nil && isBusy(err) {
		c.rec.Add(now, metrics.Busy)
		c.d.spec.Live.BusyTry()
	}
}
