package workloads

import (
	"context"
	"sync/atomic"
	"time"
)

// releaseTimeout bounds a release, which runs even after the run was
// stopped so that no lock is left behind.
const releaseTimeout = 2 * time.Second

// releaseContext is the context of a client's releases: the run's values
// without its cancellation, done timeout after the release began. It is
// what context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
// gives, without its allocations and its timer per release: each client
// keeps one and arms it again for every release, and replaces it only
// after a release outlasted it (its Done channel is then closed for good).
//
// One timer watches the releases. It is not stopped when a release ends:
// when it fires it closes done if the release in flight is overdue, sets
// itself for that release's deadline if one is in flight, and otherwise
// stops watching until the next arm. Back-to-back releases thus cost a few
// atomic operations each, and the timer fires about once per timeout.
type releaseContext struct {
	values  context.Context // context.WithoutCancel of the run's context
	base    time.Time       // deadlines are nanoseconds after it
	timeout time.Duration
	done    chan struct{}
	timer   *time.Timer // runs watch
	// deadline is the deadline of the latest release, for Deadline. state
	// is that same deadline while the release is in flight, idle between
	// releases, or expired once done is closed. watching is set while the
	// timer is set or watch runs, which then owns the timer.
	deadline atomic.Int64
	state    atomic.Int64
	watching atomic.Bool
}

// The states of a releaseContext besides a release in flight.
const (
	idle    = 0
	expired = -1
)

var _ context.Context = (*releaseContext)(nil)

func newReleaseContext(ctx context.Context, now time.Time, timeout time.Duration) *releaseContext {
	r := &releaseContext{values: context.WithoutCancel(ctx), base: now, timeout: timeout, done: make(chan struct{})}
	r.timer = time.AfterFunc(time.Hour, r.watch)
	r.timer.Stop()
	return r
}

// arm starts a release that begins at now, at or after the base. The
// context must not have expired.
func (r *releaseContext) arm(now time.Time) {
	d := int64(max(now.Sub(r.base), 0) + r.timeout)
	r.deadline.Store(d)
	r.state.Store(d)
	if !r.watching.Load() && r.watching.CompareAndSwap(false, true) {
		r.timer.Reset(r.timeout)
	}
}

// disarm ends the release and reports whether r may be armed again (false:
// the release outlasted it and Done is closed).
func (r *releaseContext) disarm() bool { return r.state.Swap(idle) != expired }

// watch is the timer's: it expires the release in flight once overdue.
func (r *releaseContext) watch() {
	for {
		s := r.state.Load()
		switch {
		case s == expired:
			return
		case s == idle:
			r.watching.Store(false)
			// An arm between the load and the store left its release to
			// this watch: look again, unless that arm set the timer.
			if r.state.Load() == idle || !r.watching.CompareAndSwap(false, true) {
				return
			}
			continue
		}
		if left := time.Duration(s) - time.Since(r.base); left > 0 {
			r.timer.Reset(left)
			return
		}
		if r.state.CompareAndSwap(s, expired) {
			close(r.done)
			return
		}
		// The release ended, and maybe another began: look again.
	}
}

// Deadline implements context.Context.
func (r *releaseContext) Deadline() (time.Time, bool) {
	return r.base.Add(time.Duration(r.deadline.Load())), true
}

// Done implements context.Context.
func (r *releaseContext) Done() <-chan struct{} { return r.done }

// Err implements context.Context.
func (r *releaseContext) Err() error {
	select {
	case <-r.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// Value implements context.Context.
func (r *releaseContext) Value(key any) any { return r.values.Value(key) }

// releasing returns the context of a release that begins at now.
func (c *client) releasing(ctx context.Context, now time.Time) context.Context {
	if c.release == nil {
		c.release = newReleaseContext(ctx, now, releaseTimeout)
	}
	c.release.arm(now)
	return c.release
}

// released ends the release that releasing began.
func (c *client) released() {
	if !c.release.disarm() {
		c.release = nil
	}
}

// closeRelease stops the timer of c's release context, once the client
// is done.
func (c *client) closeRelease() {
	if c.release != nil {
		c.release.timer.Stop()
	}
}
