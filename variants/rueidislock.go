package variants

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// rueidislock's own defaults (rueidis v1.0.79, NewLocker), restated for
// the record.
const (
	rueidislockValidity = 5 * time.Second
	rueidislockMajority = 2 // of 2×2−1 = 3 keys
	rueidislockTryNext  = 20 * time.Millisecond
)

func init() {
	Register(Info{
		Name:   "rueidislock",
		Kind:   KindLock,
		Source: "library github.com/redis/rueidis/rueidislock (rueidis v1.0.79)",
		Summary: "rueidislock's Locker, one per client on a rueidis client of its own with client-side caching: a lock is 2 of 3 keys, " +
			"each taken by a Lua SET NX PXAT + GET (so the key is tracked), 20ms per key; held keys are extended every validity/2 and " +
			"on each invalidation, and losing the majority tells the holder (Lost); a waiter sleeps until an invalidation says a key " +
			"changed. Release: Lua compare-and-delete of each key. Its own validity and wait unless the run sets them; its wait hides " +
			"the tries: one outcome is reported per acquire (with --retry, each try)",
		Claims:   Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, Renewal: true},
		Clients:  []string{LibRueidis},
		OwnTTL:   true,
		Settings: rueidislockSettings,

		// A client library of its own per client.
		ClientMemoryKiB: map[string]int64{LibRueidis: 512, LibGoRedis: 512},
	}, newRueidislock)
}

func rueidislockSettings(cfg Config) string {
	var own, given []string
	if cfg.TTL > 0 {
		given = append(given, fmt.Sprintf("key validity %v (--ttl), extended every %v", cfg.TTL, cfg.TTL/2))
	} else {
		own = append(own, fmt.Sprintf("key validity %v, extended every %v", rueidislockValidity, rueidislockValidity/2))
	}
	own = append(own, fmt.Sprintf("%d of %d keys, %v per key", rueidislockMajority, 2*rueidislockMajority-1, rueidislockTryNext))
	if cfg.Retry.IsZero() {
		own = append(own, fmt.Sprintf("waits for invalidations up to %v", cfg.AcquireTimeout))
	} else {
		given = append(given, givenRetry(cfg))
	}
	return settingsLine("rueidislock", own, given)
}

// rueidislockLock is one client's rueidislock.Locker, with a rueidis
// client of its own: its waiters learn from client-side caching's
// invalidations, which the shared client has turned off, that a lock may
// be free. The client connects where the shared one does, with its
// credentials and TLS.
type rueidislockLock struct {
	base
	locker rueidislock.Locker
	expiry *rueidislockExpiry // what its keys' expiry was last set to
}

var (
	_ OptionsAcquirer = (*rueidislockLock)(nil)
	_ io.Closer       = (*rueidislockLock)(nil)
)

func newRueidislock(cfg Config) (Lock, error) {
	_, opt, err := nativeRueidis("rueidislock", cfg.Conn)
	if err != nil {
		return nil, err
	}
	opt.DisableCache = false
	commands := commandsOf(cfg.Conn)
	validity := rueidislockValidity
	if cfg.TTL > 0 {
		validity = cfg.TTL
	}
	expiry := newRueidislockExpiry(cfg.Prefix+"rueidislock", validity)
	lopt := rueidislock.LockerOption{
		ClientOption: opt,
		// Its keys are <prefix>rueidislock:<i>:<name>, under the run's prefix.
		KeyPrefix: cfg.Prefix + "rueidislock",
		ClientBuilder: func(o rueidis.ClientOption) (rueidis.Client, error) {
			c, err := rueidis.NewClient(o)
			if err != nil {
				return nil, err
			}
			return watchedRueidis{countRueidis(c, commands), expiry}, nil
		},
	}
	if cfg.TTL > 0 {
		lopt.KeyValidity = cfg.TTL
	}
	locker, err := rueidislock.NewLocker(lopt)
	if err != nil {
		return nil, fmt.Errorf("variants: rueidislock: %w", err)
	}
	return &rueidislockLock{base: newBase(cfg), locker: locker, expiry: expiry}, nil
}

// Close closes the Locker and its client.
func (l *rueidislockLock) Close() error {
	l.locker.Close()
	return nil
}

// Acquire waits with the Locker's own WithContext, or, when the run sets
// a retry, tries with TryWithContext under that policy. The lock's
// context is derived from the one the Locker is given, so that one is
// detached from ctx: the lease must outlive the acquire.
func (l *rueidislockLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire, the extensions of the lock's keys told to
// opts.Renewals (see rueidislockExpiry).
func (l *rueidislockLock) AcquireWith(ctx context.Context, name string, opts AcquireOptions) (Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.expiry.reset(name, opts.Renewals)
	if !l.cfg.Retry.IsZero() {
		return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
			lockCtx, unlock, err := l.locker.TryWithContext(context.WithoutCancel(ctx), name)
			if errors.Is(err, rueidislock.ErrNotLocked) {
				return nil, ErrBusy
			}
			if err != nil {
				return nil, err
			}
			return &rueidislockLease{ctx: lockCtx, unlock: unlock, stop: func() {}, expiry: l.expiry, name: name}, nil
		})
	}
	// The wait ends with ctx or at the acquire timeout; after the Locker
	// returns, neither may cancel the lease's context any more.
	wait, stopWait := context.WithCancel(context.WithoutCancel(ctx))
	stopOnCtx := context.AfterFunc(ctx, stopWait)
	timer := time.AfterFunc(l.cfg.AcquireTimeout, stopWait)
	lockCtx, unlock, err := l.locker.WithContext(wait, name)
	ctxEnded := !stopOnCtx()
	timedOut := !timer.Stop()
	if err == nil && !ctxEnded && !timedOut {
		l.cfg.OnAttempt(nil)
		return &rueidislockLease{ctx: lockCtx, unlock: unlock, stop: stopWait, expiry: l.expiry, name: name}, nil
	}
	if err == nil {
		unlock() // acquired just as the wait ended
	}
	stopWait()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case timedOut:
		l.cfg.OnAttempt(ErrBusy)
		return nil, ErrTimeout
	}
	l.cfg.OnAttempt(err)
	return nil, err
}

// rueidislockLease is a held rueidislock lock: its context ends when the
// Locker loses the majority of the keys, or at release.
type rueidislockLease struct {
	ctx    context.Context
	unlock context.CancelFunc // releases, and waits until every key is deleted
	stop   context.CancelFunc // ends the context the lock's derives from
	expiry *rueidislockExpiry
	name   string
}

var _ Renewed = (*rueidislockLease)(nil)

func (l *rueidislockLease) Token() uint64         { return 0 }
func (l *rueidislockLease) Lost() <-chan struct{} { return l.ctx.Done() }

// RenewedAt is when the latest write of the lock's expiry that a majority
// of its keys carries was sent, at the latest: its acquisition or a
// renewal (see rueidislockExpiry).
func (l *rueidislockLease) RenewedAt() time.Time { return l.expiry.renewedAt(l.name) }

// Release deletes the keys still ours; ErrLeaseLost when the Locker had
// already lost the lock. rueidislock deletes without a deadline of its
// own, so the wait for it ends with ctx.
func (l *rueidislockLease) Release(ctx context.Context) error {
	lost := l.ctx.Err() != nil
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.unlock()
		l.stop()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if lost {
		return ErrLeaseLost
	}
	return nil
}
