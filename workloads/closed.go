package workloads

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/variants"
)

// errorPause is how long a client waits after a Redis error before it tries
// again, so that a dead server is not hammered by a busy loop.
const errorPause = 10 * time.Millisecond

// releaseTimeout bounds a release, which runs even after the run was
// stopped so that no lock is left behind.
const releaseTimeout = 2 * time.Second

// Spec is a closed-loop workload: Clients simulated clients, each in a loop
// of acquire → enter the protected resource → hold → exit → release → think.
type Spec struct {
	// Clients is the number of simulated clients. Required, at least 1.
	Clients int `json:"clients,omitempty"`
	// Keys is the number of distinct lock names each client picks from
	// uniformly; 1 is maximum contention. Default 1.
	Keys int `json:"keys"`
	// KeyPerClient gives each client a lock name of its own (Keys is then
	// the number of clients): no contention, the cost of the lock alone.
	// Default false.
	KeyPerClient bool `json:"key_per_client,omitempty"`
	// Hold is the time spent in the critical section. Default 0.
	Hold Distribution `json:"hold"`
	// Think is the pause after a release. Default 0.
	Think Distribution `json:"think"`
	// Duration is the length of the measured phase. 0 runs until Ops.
	Duration time.Duration `json:"duration_ns"`
	// Ops stops the measured phase after that many acquisitions were
	// started across all clients. Default 0: run for Duration.
	Ops int64 `json:"ops,omitempty"`
	// Warmup runs before the measured phase and is recorded apart.
	// Default 0.
	Warmup time.Duration `json:"warmup_ns"`
	// Clocks are the clients' clocks. Default: the machine's clock for all.
	Clocks Clocks `json:"clocks,omitzero"`
}

// Validate reports the first field out of range.
func (s Spec) Validate() error {
	switch {
	case s.Clients < 1:
		return fmt.Errorf("workloads: clients must be at least 1 (got %d)", s.Clients)
	case s.Keys < 0:
		return fmt.Errorf("workloads: keys must be at least 1 (got %d)", s.Keys)
	case s.Duration < 0 || s.Warmup < 0 || s.Ops < 0:
		return errors.New("workloads: duration, warm-up and ops must not be negative")
	case s.Duration == 0 && s.Ops == 0:
		return errors.New("workloads: give a duration or a number of ops")
	}
	return nil
}

// LockName is the name of lock number i; the oracle's resource i is the
// same lock.
func LockName(i int) string { return "lock:" + strconv.Itoa(i) }

// ClientEnv is what a simulated client's lock is built with.
type ClientEnv struct {
	// Index numbers the client from 0.
	Index int
	// Clock is the client's own clock (variants.Config.Clock).
	Clock *Clock
	// OnAttempt must be called after every try at acquiring
	// (variants.Config.OnAttempt).
	OnAttempt func(error)
}

// NewLock builds the lock of one simulated client.
type NewLock func(ClientEnv) (variants.Lock, error)

// Outcome is what a closed-loop run measured.
type Outcome struct {
	// Measured and Warmup summarize each phase; their Commands are left to
	// the caller, who counts them at the connection.
	Measured, Warmup metrics.Summary
	// Elapsed is the length of the measured phase.
	Elapsed time.Duration
	// Interrupted is true when ctx ended before the workload did.
	Interrupted bool
	// ClockOffsets are the clients' clock offsets, nil without skew.
	ClockOffsets []time.Duration
}

// Run drives the workload until its duration or ops are done or ctx ends,
// and returns what it measured. Every lease taken is released before Run
// returns. atMeasure, when not nil, is called once when the measured phase
// starts.
func Run(ctx context.Context, spec Spec, newLock NewLock, oracle *metrics.Oracle, atMeasure func()) (Outcome, error) {
	if err := spec.Validate(); err != nil {
		return Outcome{}, err
	}
	spec.Keys = max(spec.Keys, 1)
	if spec.KeyPerClient {
		spec.Keys = spec.Clients
	}
	names := make([]string, spec.Keys)
	for i := range names {
		names[i] = LockName(i)
	}
	d := &driver{spec: spec, names: names, oracle: oracle}
	d.remaining.Store(spec.Ops)
	seed, start := rand.Uint64(), time.Now()
	var offsets []time.Duration
	for i := range spec.Clients {
		c := &client{d: d, index: i, warm: metrics.NewRecorder(), measured: metrics.NewRecorder(),
			rnd: rand.New(rand.NewPCG(seed, uint64(i)))}
		c.rec = c.warm
		clock := spec.Clocks.NewClock(c.rnd, start)
		if spec.Clocks.Skew != (Skew{}) {
			offsets = append(offsets, clock.Offset())
		}
		lock, err := newLock(ClientEnv{Index: i, Clock: clock, OnAttempt: c.attempt})
		if err != nil {
			return Outcome{}, fmt.Errorf("workloads: client %d: %w", i, err)
		}
		c.lock = lock
		d.clients = append(d.clients, c)
	}

	measureAt := start.Add(spec.Warmup)
	// The end is a cancel, not a context deadline: a client library that
	// turns a deadline into a socket timeout would report the commands in
	// flight at the end as errors.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if spec.Duration > 0 {
		defer time.AfterFunc(time.Until(measureAt.Add(spec.Duration)), stop).Stop()
	}
	phaseDone := make(chan struct{})
	startMeasuring := func() {
		defer close(phaseDone)
		if atMeasure != nil {
			atMeasure()
		}
		d.measuring.Store(true)
	}
	if spec.Warmup == 0 {
		startMeasuring()
	}
	phase := time.AfterFunc(spec.Warmup, func() {
		if spec.Warmup > 0 {
			startMeasuring()
		}
	})
	var wg sync.WaitGroup
	for _, c := range d.clients {
		wg.Go(func() { c.loop(runCtx) })
	}
	wg.Wait()
	if !phase.Stop() {
		<-phaseDone
	}

	end := time.Now()
	if deadline := measureAt.Add(spec.Duration); spec.Ops == 0 && end.After(deadline) {
		end = deadline
	}
	warm, measured := make([]*metrics.Recorder, len(d.clients)), make([]*metrics.Recorder, len(d.clients))
	for i, c := range d.clients {
		warm[i], measured[i] = c.warm, c.measured
	}
	return Outcome{
		Measured:     metrics.Merge(measured),
		Warmup:       metrics.Merge(warm),
		Elapsed:      max(end.Sub(measureAt), 0),
		Interrupted:  ctx.Err() != nil,
		ClockOffsets: offsets,
	}, nil
}

// driver is the state the clients of one run share.
type driver struct {
	spec      Spec
	names     []string
	oracle    *metrics.Oracle
	clients   []*client
	measuring atomic.Bool
	remaining atomic.Int64 // ops left when spec.Ops > 0
}

// client is one simulated client: its lock, its recorders and its randomness.
type client struct {
	d              *driver
	index          int
	lock           variants.Lock
	warm, measured *metrics.Recorder
	rec            *metrics.Recorder // the phase's recorder, also used by attempt
	rnd            *rand.Rand
	timer          *time.Timer
}

// attempt counts a try at acquiring; the lock calls it from Acquire.
func (c *client) attempt(err error) {
	c.rec.Attempts++
	if errors.Is(err, variants.ErrBusy) {
		c.rec.FailedAttempts++
	}
}

func (c *client) loop(ctx context.Context) {
	for ctx.Err() == nil {
		if c.d.measuring.Load() {
			// Out of ops: this client is done; the others finish the
			// acquisitions they started.
			if c.rec = c.measured; c.d.spec.Ops > 0 && c.d.remaining.Add(-1) < 0 {
				return
			}
		}
		c.once(ctx)
	}
}

// once runs one acquire → hold → release → think cycle.
func (c *client) once(ctx context.Context) {
	rec := c.rec
	k := 0
	switch {
	case c.d.spec.KeyPerClient:
		k = c.index
	case len(c.d.names) > 1:
		k = c.rnd.IntN(len(c.d.names))
	}
	began := time.Now()
	lease, err := c.lock.Acquire(ctx, c.d.names[k])
	switch {
	case err == nil:
		rec.RecordAcquire(time.Since(began))
	case ctx.Err() != nil:
		return
	case errors.Is(err, variants.ErrTimeout):
		rec.Timeouts++
	case errors.Is(err, variants.ErrBusy):
		// counted by attempt; a fail-fast acquire just thinks and tries again
	default:
		rec.Errors++
		c.sleep(ctx, errorPause, nil)
	}
	if err != nil {
		c.sleep(ctx, c.d.spec.Think.Sample(c.rnd), nil)
		return
	}

	entry := c.d.oracle.Enter(k)
	entered := time.Now()
	lost := c.sleep(ctx, c.d.spec.Hold.Sample(c.rnd), lease.Lost())
	if lost {
		c.d.oracle.Abandon(entry)
		rec.LeaseLost++
	} else {
		c.d.oracle.Exit(entry)
	}
	rec.RecordHold(time.Since(entered))

	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	released := time.Now()
	err = lease.Release(rctx)
	cancel()
	switch {
	case err == nil:
		rec.RecordRelease(time.Since(released))
	case errors.Is(err, variants.ErrLeaseLost):
		if !lost {
			rec.LeaseLost++
		}
	default:
		rec.Errors++
	}
	c.sleep(ctx, c.d.spec.Think.Sample(c.rnd), nil)
}

// sleep waits for d, ctx's end, or lost to close; it reports whether lost
// closed.
func (c *client) sleep(ctx context.Context, d time.Duration, lost <-chan struct{}) bool {
	if d <= 0 {
		select {
		case <-lost:
			return true
		default:
			return false
		}
	}
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	defer c.timer.Stop()
	select {
	case <-lost:
		return true
	case <-ctx.Done():
	case <-c.timer.C:
	}
	return false
}
