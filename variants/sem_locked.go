package variants

import (
	"context"
	"strconv"
	"time"
)

// The guard lock of sem-locked: held only around one fair acquire.
const (
	guardTTL  = time.Second           // a crashed guard holder blocks acquires for at most this
	guardWait = 10 * time.Millisecond // the book's acquire timeout for the guard
	guardPoll = time.Millisecond
)

func init() {
	Register(Info{
		Name:   "sem-locked",
		Kind:   KindSemaphore,
		Source: "Redis in Action (Carlson 2013) §6.3.4 Preventing race conditions",
		Summary: "sem-fair's acquire done while holding a short guard lock (SET NX PX 1s, waited for up to 10 ms, " +
			"released by Lua compare-and-delete); no guard, no permit (busy)",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, Renewal: true},
		DefaultRetry: "none",
		Steps: []Step{
			{StepGuardHeld, "acquire: guard lock held, fair acquire not yet started"},
			{StepBetweenTransactions, "acquire: INCR done, ZADD and ZRANK not yet sent"},
			{StepBeforeRenewal, "before each refresh"},
		},
	}, func(cfg Config) (Lock, error) { return &semLocked{base: newBase(cfg)}, nil })
}

// semLocked removes sem-fair's race by serializing acquires with a lock on
// the semaphore. As in the book (§6.3.4), the guard is waited for only
// 10 ms, not the semaphore's timeout. The guard expires after 1 s, so a
// client that dies holding it stalls acquires briefly, not forever.
type semLocked struct{ base }

var _ OptionsAcquirer = (*semLocked)(nil)

func (s *semLocked) Acquire(ctx context.Context, name string) (Lease, error) {
	return s.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire, the permit's refreshes told to opts.Renewals.
func (s *semLocked) AcquireWith(ctx context.Context, name string, opts AcquireOptions) (Lease, error) {
	return s.acquire(ctx, func(ctx context.Context) (Lease, error) {
		keys := s.semKeys(name)
		token, err := s.takeGuard(ctx, keys.guard)
		if err != nil {
			return nil, err
		}
		defer func() {
			_ = s.compareAndDelete(context.WithoutCancel(ctx), keys.guard, token)
		}()
		if err := s.step(ctx, StepGuardHeld); err != nil {
			return nil, err
		}
		return s.tryFair(ctx, keys, opts.Renewals)
	})
}

// takeGuard tries SET NX PX on the guard for up to guardWait; ErrBusy when
// it stays held.
func (s *semLocked) takeGuard(ctx context.Context, key string) (string, error) {
	token := s.token()
	deadline := time.Now().Add(guardWait)
	ttl := []string{"NX", "PX", strconv.FormatInt(guardTTL.Milliseconds(), 10)}
	for {
		reply, err := s.cfg.Conn.Do(ctx, Cmd("SET", key, append([]string{token}, ttl...)...))
		if err != nil {
			return "", err
		}
		if reply != nil {
			return token, nil
		}
		if time.Now().Add(guardPoll).After(deadline) {
			return "", ErrBusy
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(guardPoll):
		}
	}
}
