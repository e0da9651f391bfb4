package workloads

import (
	"context"
	"errors"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/variants"
)

// errorPause is how long a client waits after a Redis error before it tries
// again, so that a dead server is not hammered by a busy loop.
const errorPause = 10 * time.Millisecond

// releaseTimeout bounds a release, which runs even after the run was
// stopped so that no lock is left behind.
const releaseTimeout = 2 * time.Second

func isBusy(err error) bool { return errors.Is(err, variants.ErrBusy) }

// cycle runs one acquire → hold → release, meant to start at intended and
// started at began, and reports whether the caller should go on (false when
// ctx ended during the acquire, or a fault crashed the client).
func (c *client) cycle(ctx context.Context, intended, began time.Time) bool {
	rec := c.d.recorder(c.shard, intended)
	c.rec = rec
	k := 0
	switch {
	case c.d.spec.KeyPerClient:
		k = c.d.spec.FirstClient + c.index
	case len(c.d.names) > 1:
		k = c.rnd.IntN(len(c.d.names))
	}
	c.d.oracle.Waiting(k)
	lease, err := c.lock.Acquire(ctx, c.d.names[k])
	done := time.Now()
	if err != nil {
		c.d.oracle.GaveUp(k)
	}
	switch {
	case err == nil:
		rec.Acquired(done, done.Sub(intended), done.Sub(began))
		c.d.spec.Live.Acquired(done.Sub(intended))
		if !intended.Before(c.d.measureAt) {
			c.acquisitions++
		}
	case ctx.Err() != nil:
		return false
	case errors.Is(err, faults.ErrCrashed):
		rec.Add(done, metrics.Crashed)
		return false
	case errors.Is(err, variants.ErrTimeout):
		rec.Add(done, metrics.Timeout)
		c.d.spec.Live.TimedOut()
	case isBusy(err):
		// counted by attempt; a fail-fast acquire just goes on
	default:
		rec.Add(done, metrics.Error)
		c.d.spec.Live.Failed()
		c.sleep(ctx, errorPause, nil)
	}
	if err != nil {
		return true
	}

	// The write at Exit carries the lease's fencing token (0 for none).
	entry := c.d.oracle.EnterFenced(k, lease.Token())
	if f := c.d.holderFault(); f != nil {
		c.d.event(f, c, string(f.Kind))
		if f.Kind == faults.HolderCrash {
			// Dead while holding: it leaves the resource, never releases,
			// and its renewals stop at their next step.
			c.crashed.Store(true)
			c.d.oracle.Abandon(entry)
			rec.Add(time.Now(), metrics.Crashed)
			return false
		}
		// A stop-the-world pause: the holder and its renewals freeze.
		c.frozenUntil.Store(time.Now().Add(f.For).UnixNano())
		c.sleep(ctx, f.For, nil)
	}
	lost := c.sleep(ctx, c.d.spec.Hold.Sample(c.rnd), lease.Lost())
	switch {
	case lost:
		c.d.oracle.Abandon(entry)
		rec.Add(time.Now(), metrics.LeaseLost)
	case !c.d.oracle.Exit(entry):
		// The resource refused the write: its token is older than one
		// written since, so the lease had passed on. The holder learns it
		// here, as from a failed renewal: one lease lost, not counted
		// again when the release finds the lock gone.
		lost = true
		rec.Add(time.Now(), metrics.LeaseLost)
	}
	rec.Held(time.Since(done))

	// A later holder inside before the release means the lease had already
	// passed on: if the release still succeeds, it freed another's lock.
	intruded := c.d.oracle.Intruded(entry)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	released := time.Now()
	err = lease.Release(rctx)
	cancel()
	switch {
	case err == nil:
		rec.Released(time.Since(released))
		if intruded {
			rec.Add(time.Now(), metrics.StaleRelease)
		}
	case errors.Is(err, variants.ErrLeaseLost):
		if !lost {
			rec.Add(time.Now(), metrics.LeaseLost)
		}
	case errors.Is(err, faults.ErrCrashed):
		rec.Add(time.Now(), metrics.Crashed)
		return false
	default:
		rec.Add(time.Now(), metrics.Error)
		c.d.spec.Live.Failed()
	}
	return true
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
