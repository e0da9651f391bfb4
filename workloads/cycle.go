package workloads

import (
	"context"
	"errors"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/variants"
)

// errorPause is how long a client waits after a Redis error before it tries
// again, so that a dead server is not hammered by a busy loop.
const errorPause = 10 * time.Millisecond

func isBusy(err error) bool { return errors.Is(err, variants.ErrBusy) }

// cycle runs one acquire → hold → release, meant to start at intended and
// started at began. It reports whether the caller should go on (false when
// ctx ended during the acquire, or a fault crashed the client) and, after a
// release, when the release ended (zero otherwise): with no think time, the
// closed loop's next cycle starts then.
//
// It reads the clock once per event (acquired and entered, left and
// release begun, release ended; with no hold, one reading for the first
// two), the monotonic clock alone (driver.now), and allocates nothing of
// its own.
func (c *client) cycle(ctx context.Context, intended, began time.Time) (goOn bool, end time.Time) {
	rec := c.d.recorder(c.stripe, intended)
	c.tally.To(rec)
	k := 0
	switch {
	case c.d.spec.KeyPerClient:
		k = c.d.spec.FirstClient + c.index
	case c.d.pickKey != nil:
		k = c.d.pickKey(c.rnd)
	case len(c.d.names) > 1:
		k = c.rnd.IntN(len(c.d.names))
	}
	// The client waits from its first try that finds k held (attempt
	// tells the oracle) to the end of the acquire, or, when a fail-fast
	// acquire found it held, until it stops trying for k (see stopWaiting).
	if k != c.key {
		c.stopWaiting(began)
	}
	c.key = k
	c.askWaits(k, began)
	acq := c.invoke(k, history.Acquire, history.NoID)
	lease, err := c.acquire(ctx, k, acq)
	done := c.d.now()
	if err == nil || !isBusy(err) || ctx.Err() != nil {
		c.stopWaiting(done)
	}
	if err != nil {
		c.complete(acq, acquireOutcome(ctx, err), 0)
		return c.failedAcquire(ctx, rec, err, done), time.Time{}
	}
	c.complete(acq, history.OK, lease.Token())
	c.d.spec.Follow.acquired(done)
	expiry := c.acquiredMargin(lease, began, done)
	c.tally.Acquired(done, done.Sub(intended), done.Sub(began))
	c.live.Acquired(done.Sub(intended))
	if !intended.Before(c.d.measureAt) {
		c.acquisitions++
	}

	// The write at Exit carries the lease's fencing token (0 for none).
	enter := c.invoke(k, history.Enter, acq)
	entry := c.d.oracle.EnterFencedAt(k, lease.Token(), done)
	c.complete(enter, history.OK, lease.Token())
	f := c.d.holderFault(done)
	if f != nil {
		if f.Kind == faults.HolderCrash {
			// Dead while holding: it leaves the resource, never releases,
			// and its renewals stop at their next step; in a process
			// apart, the process dies with its every client.
			crashed := c.d.now()
			note := c.crash(rec, crashed)
			c.d.eventAt(f, c, string(f.Kind)+note, crashed)
			exit := c.invoke(k, history.Exit, acq)
			c.d.oracle.AbandonAt(entry, crashed)
			c.complete(exit, history.Fail, 0)
			return false, time.Time{}
		}
		// A stop-the-world pause: the holder and its renewals freeze (in
		// a process apart, the process with its every client).
		paused := time.Now()
		c.d.eventAt(f, c, string(f.Kind)+c.pause(ctx, f), paused)
	}
	hold := c.d.spec.Hold.Sample(c.rnd)
	lost := c.sleep(ctx, hold, lease.Lost())
	noticed := lost // told by the variant (Lost), not by the resource
	// A client of a process that was stopped meanwhile stays in until it
	// runs again; one that was killed left when it died.
	thawed := c.waitThaw(ctx)
	if c.wasKilled() {
		c.leaveKilled(k, acq, entry)
		return false, time.Time{}
	}
	// A zero hold leaves as it enters, at the same reading of the clock.
	exited := done
	if hold > 0 || f != nil || thawed {
		exited = c.d.now()
	}
	exit := c.invoke(k, history.Exit, acq)
	switch {
	case lost:
		c.d.oracle.AbandonAt(entry, exited)
		rec.Add(exited, metrics.LeaseLost)
	case !c.d.oracle.ExitAt(entry, exited):
		// The resource refused the write: its token is older than one
		// written since, so the lease had passed on. The holder learns it
		// here, as from a failed renewal: one lease lost, not counted
		// again when the release finds the lock gone.
		lost = true
		rec.Add(exited, metrics.LeaseLost)
	}
	c.complete(exit, exitOutcome(lost), 0)
	c.exitedMargin(lease, expiry, exited, noticed)

	// A later holder inside before the release means the lease had already
	// passed on: if the release still succeeds, it freed another's lock.
	intruded := c.d.oracle.Intruded(entry)
	// The release begins as the holder leaves: one reading of the clock
	// for both events, the oracle's bookkeeping between them (a fraction
	// of a microsecond) counting in the release.
	released := exited
	rel := c.invoke(k, history.Release, acq)
	err = lease.Release(c.releasing(ctx, released))
	end = c.d.now()
	c.complete(rel, releaseOutcome(err), 0)
	c.released()
	c.tally.Held(exited.Sub(done))
	switch {
	case err == nil:
		c.tally.Released(end.Sub(released))
		if intruded {
			rec.Add(end, metrics.StaleRelease)
		}
	case errors.Is(err, variants.ErrLeaseLost):
		if !lost {
			rec.Add(end, metrics.LeaseLost)
		}
	case errors.Is(err, faults.ErrCrashed):
		rec.Add(end, metrics.Crashed)
		return false, time.Time{}
	case c.wasKilled(): // counted when its process was killed
		return false, time.Time{}
	default:
		rec.Failed(end, failureOf(err))
		c.live.Failed()
	}
	return true, end
}

// stopWaiting tells the oracle that the client, which waited for its key,
// stopped waiting at at: it entered, gave up, timed out, or, after a
// fail-fast acquire that found the key held, does not try again at once
// for the same key (it thinks, picks another key, serves an open loop's
// next arrival, or the cell ended).
func (c *client) stopWaiting(at time.Time) {
	if c.waiting {
		c.waiting = false
		c.d.oracle.GaveUpAt(c.key, at)
	}
}

// failedAcquire counts an acquire that failed with err at done and reports
// whether the client goes on.
func (c *client) failedAcquire(ctx context.Context, rec *metrics.Recorder, err error, done time.Time) bool {
	switch {
	case ctx.Err() != nil, c.wasKilled(): // counted when its process was killed
		return false
	case errors.Is(err, faults.ErrCrashed):
		rec.Add(done, metrics.Crashed)
		return false
	case errors.Is(err, variants.ErrTimeout):
		rec.Add(done, metrics.Timeout)
		c.live.TimedOut()
	case isBusy(err):
		// counted by attempt; a fail-fast acquire just goes on
	default:
		rec.Failed(done, failureOf(err))
		c.live.Failed()
		c.sleep(ctx, errorPause, nil)
	}
	return true
}

// sleep waits for d, ctx's end, or lost to close; it reports whether lost
// closed.
func (c *client) sleep(ctx context.Context, d time.Duration, lost <-chan struct{}) bool {
	if d <= 0 && lost == nil {
		return false // no hold, and a lease that is never lost (most variants' leases)
	}
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
	case <-c.killedChan():
	}
	return false
}
