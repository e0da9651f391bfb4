package variants

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/bsm/redislock"
)

func init() {
	Register(Info{
		Name:   "redislock",
		Kind:   KindLock,
		Source: "library github.com/bsm/redislock (v0.9.4), on go-redis",
		Summary: "redislock's Obtain: one Lua script, SET key token NX PX ttl (or re-SET when the key already holds our token); " +
			"release: Lua compare-and-delete. Its own retry (none: one try) unless the run sets one; the TTL is the run's " +
			"(redislock has no default). Each try is reported",
		Claims:   Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true},
		Clients:  []string{LibGoRedis}, // it takes a go-redis Scripter, which rueidis does not provide
		OwnTTL:   true,                 // none: lockbench's default, said so in Settings
		Settings: redislockSettings,
	}, newRedislock)
}

func redislockSettings(cfg Config) string {
	var own, given []string
	if cfg.Retry.IsZero() {
		own = append(own, "no retry (one try per acquire)")
	} else {
		given = append(given, givenRetry(cfg))
	}
	if cfg.TTL > 0 {
		given = append(given, fmt.Sprintf("ttl %v (--ttl)", cfg.TTL))
	} else {
		given = append(given, fmt.Sprintf("ttl %v (lockbench's default: redislock has none)", DefaultTTL))
	}
	return settingsLine("redislock", own, given)
}

// redislockLock is a redislock.Client on the shared go-redis client.
type redislockLock struct {
	base
	client *redislock.Client
}

var _ OptionsAcquirer = (*redislockLock)(nil)

func newRedislock(cfg Config) (Lock, error) {
	client, err := nativeGoRedis("redislock", cfg.Conn)
	if err != nil {
		return nil, err
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL // redislock has no default
	}
	return &redislockLock{base: newBase(cfg), client: redislock.New(client)}, nil
}

// Acquire runs redislock's Obtain. Without a run's retry it is
// redislock's default, one try; with one, a RetryStrategy that draws the
// run's pauses, reports each failed try (redislock asks it for the next
// pause after every one) and stops at the acquire timeout, between tries,
// so that no command is cut short.
func (l *redislockLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire; aopts.Renewals is told of each Refresh.
func (l *redislockLock) AcquireWith(ctx context.Context, name string, aopts AcquireOptions) (Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		opts     *redislock.Options
		strategy *redislockRetry
		octx     = ctx
	)
	if !l.cfg.Retry.IsZero() {
		deadline := time.Now().Add(l.cfg.AcquireTimeout)
		strategy = &redislockRetry{policy: l.cfg.Retry, deadline: deadline, rnd: l.rnd, onAttempt: l.cfg.OnAttempt}
		opts = &redislock.Options{RetryStrategy: strategy}
		// Obtain would stop at ctx's deadline, or at ttl without one, and
		// cut a try short there; the strategy stops first.
		var cancel context.CancelFunc
		octx, cancel = context.WithDeadline(ctx, deadline.Add(time.Minute))
		defer cancel()
	}
	lock, err := l.client.Obtain(octx, l.key(name), l.cfg.TTL, opts)
	switch {
	case err == nil && ctx.Err() != nil:
		_ = lock.Release(context.WithoutCancel(ctx))
		return nil, ctx.Err()
	case err == nil:
		l.cfg.OnAttempt(nil)
		return &redislockLease{lock: lock, ttl: l.cfg.TTL, obs: aopts.Renewals}, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, redislock.ErrNotObtained) && strategy == nil:
		l.cfg.OnAttempt(ErrBusy) // redislock's one try
		return nil, ErrBusy
	case errors.Is(err, redislock.ErrNotObtained) && strategy.timedOut:
		return nil, ErrTimeout
	case errors.Is(err, redislock.ErrNotObtained):
		return nil, ErrBusy // --retry none
	}
	l.cfg.OnAttempt(err)
	return nil, err
}

// redislockRetry is a redislock.RetryStrategy with the run's retry policy.
type redislockRetry struct {
	policy    RetryPolicy
	deadline  time.Time
	rnd       *rand.Rand
	onAttempt func(error)
	attempt   int
	timedOut  bool
}

// NextBackoff is called after each failed try; 0 stops Obtain with
// ErrNotObtained.
func (r *redislockRetry) NextBackoff() time.Duration {
	r.onAttempt(ErrBusy)
	if r.policy.Kind == RetryNone {
		return 0
	}
	wait := time.Until(r.deadline)
	if wait <= 0 {
		r.timedOut = true
		return 0
	}
	d := min(r.policy.Delay(r.attempt, r.rnd), wait)
	r.attempt++
	return max(d, time.Nanosecond) // 0 would stop Obtain: spin is the shortest pause
}

// redislockLease is an obtained redislock.Lock.
type redislockLease struct {
	lock *redislock.Lock
	ttl  time.Duration
	obs  RenewalObserver // told of each Refresh; nil: nobody
}

var _ Refresher = (*redislockLease)(nil)

func (l *redislockLease) Token() uint64         { return 0 }
func (l *redislockLease) Lost() <-chan struct{} { return nil }

// Release deletes the key if it still holds our token; ErrLeaseLost when
// it did not.
func (l *redislockLease) Release(ctx context.Context) error {
	err := l.lock.Release(ctx)
	if errors.Is(err, redislock.ErrLockNotHeld) {
		return ErrLeaseLost
	}
	return err
}

// Refresh sets the key's TTL to the lease's again if it still holds our
// token (redislock's Refresh); ErrLeaseLost when it did not.
func (l *redislockLease) Refresh(ctx context.Context) error {
	return observed(ctx, l.obs, func(ctx context.Context) error {
		err := l.lock.Refresh(ctx, l.ttl, nil)
		if errors.Is(err, redislock.ErrNotObtained) {
			return ErrLeaseLost
		}
		return err
	})
}
