package driver

import (
	"context"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// This file is the adapter that makes a driver's client one of lockbench's
// locks: a Client as a variants.Lock, its leases as variants.Lease, so
// that the workload, the oracle, the histories and the margins treat a
// lock in another process as they treat their own. It lives here, beside
// the mapping of the protocol's outcomes to variants' errors that it
// completes, so that whatever drives a lock through variants (the
// runner, a benchmark) can take a driver's without the runner.

// LockOptions are what a Lock adds to its Client. The zero value of each
// optional field selects the default its doc states.
type LockOptions struct {
	// Prefix starts every key: the lock called name is the key
	// Prefix+name, as lockbench's own variants name theirs. Required
	// (the driver's init prefix, or a longer one under it).
	Prefix string
	// OnAttempt, when set, is told the outcome of every acquire request
	// (variants.Config.OnAttempt): nil, variants.ErrBusy, ErrTimeout or
	// another error. A driver's library retries inside one request, out
	// of lockbench's sight: each request is one attempt. Default: none.
	OnAttempt func(err error)
	// OnAcquired, when set, is told of every lease acquired, with the
	// time the library's call took as the driver reported it (Lease.Took,
	// 0 when it did not). Default: none.
	OnAcquired func(*Lease)
}

// Lock is a Client as a variants.Lock. Its errors are Client's: an
// acquire that did not get the lock fails with variants.ErrBusy or
// variants.ErrTimeout, a release of a lease no longer held with
// variants.ErrLeaseLost; an error after which the request certainly did
// not take effect (a definite error reply, a request never sent) is
// ErrDefinite, which is variants.ErrDefinite.
type Lock struct {
	c    *Client
	opts LockOptions
}

var _ variants.Lock = (*Lock)(nil)

// NewLock makes c a variants.Lock.
func NewLock(c *Client, opts LockOptions) *Lock { return &Lock{c: c, opts: opts} }

// Client is the lock's client.
func (l *Lock) Client() *Client { return l.c }

// Acquire asks the driver for the lock called name (key Prefix+name).
func (l *Lock) Acquire(ctx context.Context, name string) (variants.Lease, error) {
	lease, err := l.c.Acquire(ctx, l.opts.Prefix+name)
	if l.opts.OnAttempt != nil {
		l.opts.OnAttempt(err)
	}
	if err != nil {
		return nil, err
	}
	if l.opts.OnAcquired != nil {
		l.opts.OnAcquired(lease)
	}
	if lease.Validity > 0 {
		return &validLease{lockLease{lease}}, nil
	}
	return &lockLease{lease}, nil
}

// lockLease is a driver's lease as a variants.Lease.
type lockLease struct{ l *Lease }

var _ variants.Lease = (*lockLease)(nil)

// Release releases the lease: variants.ErrLeaseLost when the driver says
// it was no longer held.
func (l *lockLease) Release(ctx context.Context) error {
	_, err := l.l.Release(ctx)
	return err
}

// Token is the lease's fencing token, 0 when the driver has none.
func (l *lockLease) Token() uint64 { return l.l.Fence }

// Lost is closed when the driver says the lease is gone (lease_lost).
func (l *lockLease) Lost() <-chan struct{} { return l.l.Lost() }

// Lease is the driver's lease.
func (l *lockLease) Lease() *Lease { return l.l }

// validLease is a lease whose driver said how long it is valid.
type validLease struct{ lockLease }

var _ variants.Validity = (*validLease)(nil)

// ValidUntil is when the lease expires as the library reported it: the
// time lockbench read the acquire_ok plus the validity it carried. (The
// reply's way through the pipe is not subtracted: a few microseconds.)
func (l *validLease) ValidUntil() time.Time { return l.l.Received.Add(l.l.Validity) }
