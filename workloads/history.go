package workloads

import (
	"context"
	"errors"
	"sync"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/variants"
)

// This file records a cell's history (package history): each client's
// acquire, enter, exit and release, as an invocation just before the call
// and a completion just after it, the evidence behind the oracle's counts
// that package linearize checks, and every renewal the variant makes of a
// lease (extend), which the variant tells the lease's leaseRenewals from
// its renewal goroutine. Without a history (Spec.HistoryEvents 0) each
// hook costs a nil check.

// newHistory is the recorder of a cell that starts at start, nil when the
// spec records no history.
func (d *driver) newHistory() *history.Recorder {
	if d.spec.HistoryEvents <= 0 {
		return nil
	}
	return history.NewRecorder(history.RecorderOptions{Capacity: d.spec.HistoryEvents, Keys: d.names, Start: d.measureAt.Add(-d.spec.Warmup)})
}

// invoke records that the client starts op on lock k, acting on the lease
// its acquire lease took (history.NoID for an acquire), and returns the
// invocation's ID; history.NoID without a history. An op of a lease whose
// acquire was not recorded (the history was full) is not recorded either:
// it counts as dropped.
func (c *client) invoke(k int, op history.Op, lease history.ID) history.ID {
	h := c.d.hist
	if h == nil {
		return history.NoID
	}
	if op != history.Acquire && lease == history.NoID {
		h.Complete(history.NoID, history.Info, 0) // counts the dropped event
		return history.NoID
	}
	return h.Invoke(c.process, k, op, lease)
}

// complete records the outcome of the invocation id, with the fencing
// token fence (0 for none).
func (c *client) complete(id history.ID, outcome history.Type, fence uint64) {
	if h := c.d.hist; h != nil {
		h.Complete(id, outcome, fence)
	}
}

// acquireOutcome is what an acquire that returned err did: it certainly
// did not take the lock when the lock was busy, the retry policy gave up,
// or a lock driver said so (a definite error, variants.ErrDefinite); after
// a Redis error, a crash, a driver's indefinite error or the end of ctx
// mid-call the SET may have landed.
func acquireOutcome(ctx context.Context, err error) history.Type {
	switch {
	case err == nil:
		return history.OK
	case ctx.Err() != nil:
		return history.Info
	case errors.Is(err, variants.ErrBusy), errors.Is(err, variants.ErrTimeout), errors.Is(err, variants.ErrDefinite):
		return history.Fail
	}
	return history.Info
}

// exitOutcome is what an exit did: left having written, or, its lease
// lost (abandoned) or its write refused as stale, left without its write
// taking effect.
func exitOutcome(lost bool) history.Type {
	if lost {
		return history.Fail
	}
	return history.OK
}

// releaseOutcome is what a release that returned err did: given back, or
// found lost; any other error leaves it unknown.
func releaseOutcome(err error) history.Type {
	switch {
	case err == nil:
		return history.OK
	case errors.Is(err, variants.ErrLeaseLost):
		return history.Fail
	}
	return history.Info // a Redis error, a crash (faults.ErrCrashed), a timeout
}

// acquire is the client's Acquire of lock k, whose invocation was recorded
// as acq: with a history and a lock that takes options (every variant
// that renews), the lease's renewals are recorded as extends of it.
func (c *client) acquire(ctx context.Context, k int, acq history.ID) (variants.Lease, error) {
	if c.options == nil {
		return c.lock.Acquire(ctx, c.d.names[k])
	}
	obs := &leaseRenewals{c: c, key: k, lease: acq}
	return c.options.AcquireWith(ctx, c.d.names[k], variants.AcquireOptions{Renewals: obs})
}

// leaseRenewals records the renewals of one lease as extends of it, by
// its holder's process, on its lock (not recorded, but counted as dropped,
// when the lease's acquire was not: the history was full). The variant
// calls it from the lease's renewal goroutines, while the client goes on
// with its cycle; the recorder takes events from any goroutine.
type leaseRenewals struct {
	c     *client
	key   int
	lease history.ID // the acquire's invocation
}

var _ variants.RenewalObserver = (*leaseRenewals)(nil)

// RenewalStarted records an extend's invocation.
func (r *leaseRenewals) RenewalStarted() int64 {
	g := &r.c.d.histGate
	g.RLock()
	defer g.RUnlock()
	if g.closed {
		return int64(history.NoID)
	}
	return int64(r.c.invoke(r.key, history.Extend, r.lease))
}

// RenewalEnded records its completion.
func (r *leaseRenewals) RenewalEnded(renewal int64, err error) {
	g := &r.c.d.histGate
	g.RLock()
	defer g.RUnlock()
	if !g.closed {
		r.c.complete(history.ID(renewal), extendOutcome(err), 0)
	}
}

// histGate keeps renewals from recording once the cell's history was
// taken: a crashed holder's lease is never released, and rueidislock goes
// on extending it until the lock is closed. An extend under way then stays
// without completion (its outcome unknown).
type histGate struct {
	sync.RWMutex
	closed bool
}

// takeHistory closes the gate and returns the recorded history; every
// client has stopped, and renewals record nothing after it.
func (d *driver) takeHistory() *history.History {
	d.histGate.Lock()
	d.histGate.closed = true
	d.histGate.Unlock()
	return d.hist.History()
}

// extendOutcome is what a renewal that returned err did: renewed, found
// lost (not renewed), or, after a Redis error or a timeout, unknown.
func extendOutcome(err error) history.Type {
	switch {
	case err == nil:
		return history.OK
	case errors.Is(err, variants.ErrLeaseLost):
		return history.Fail
	}
	return history.Info
}
