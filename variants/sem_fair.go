package variants

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

func init() {
	Register(Info{
		Name:   "sem-fair",
		Kind:   KindSemaphore,
		Source: "Redis in Action (Carlson 2013) §6.3.2 Fair semaphores, §6.3.3 Refreshing semaphores",
		Summary: "timeout ZSET (client time), owner ZSET (counter), counter. MULTI/EXEC 1: ZREMRANGEBYSCORE, " +
			"ZINTERSTORE owner WEIGHTS 1 0, INCR. MULTI/EXEC 2: ZADD both, ZRANK owner. Refresh: ZADD; added = lost",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, Renewal: true},
		DefaultRetry: "none",
		Steps: []Step{
			{StepBetweenTransactions, "acquire: INCR done, ZADD and ZRANK not yet sent (the race for the last permit)"},
			{StepBeforeRenewal, "before each refresh"},
		},
	}, func(cfg Config) (Lock, error) { return &semFair{base: newBase(cfg)}, nil })
}

// semFair is the book's fair semaphore: the order of a counter, not the
// clients' clocks, decides who holds a permit, so clocks only need to agree
// within the timeout's margin (about a second, the book says in §6.3.2).
// Its acquire is two transactions, and between them it races: a client that
// INCRs first but adds its token last outranks, and so steals the permit
// of, a client that ranked in between; the victim learns only at refresh or
// release.
//
// As in the book, timed-out members are removed from the timeout ZSET by
// score (ZREMRANGEBYSCORE), and ZINTERSTORE drops them from the owner ZSET.
// Holders refresh every TTL/3, so a hold that approaches the timeout keeps
// its permit.
type semFair struct{ base }

var _ OptionsAcquirer = (*semFair)(nil)

func (s *semFair) Acquire(ctx context.Context, name string) (Lease, error) {
	return s.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire, the permit's refreshes told to opts.Renewals.
func (s *semFair) AcquireWith(ctx context.Context, name string, opts AcquireOptions) (Lease, error) {
	return s.acquire(ctx, func(ctx context.Context) (Lease, error) {
		return s.tryFair(ctx, s.semKeys(name), opts.Renewals)
	})
}

// tryFair is one fair acquire, shared with sem-locked.
func (b *base) tryFair(ctx context.Context, keys semKeys, obs RenewalObserver) (Lease, error) {
	token, conn := b.token(), b.cfg.Conn
	now, cutoff := b.clockMicros()
	first, err := multiExec(ctx, conn,
		Cmd("ZREMRANGEBYSCORE", keys.timeout, "-inf", cutoff),
		Command{Argv: []string{"ZINTERSTORE", keys.owner, "2", keys.owner, keys.timeout, "WEIGHTS", "1", "0"}, Keys: []int{1, 3, 4}},
		Cmd("INCR", keys.counter))
	if err != nil {
		return nil, err
	}
	counter, ok := first[2].(int64)
	if !ok {
		return nil, fmt.Errorf("variants: INCR replied %v", first[2])
	}
	if err := b.step(ctx, StepBetweenTransactions); err != nil {
		return nil, err
	}
	second, err := multiExec(ctx, conn,
		Cmd("ZADD", keys.timeout, now, token),
		Cmd("ZADD", keys.owner, strconv.FormatInt(counter, 10), token),
		Cmd("ZRANK", keys.owner, token))
	if err != nil {
		return nil, err
	}
	lease := &semLease{b: b, keys: keys, token: token, fair: true, obs: obs}
	if ok, err := b.ranked(second[2]); err != nil || !ok {
		if rerr := lease.remove(ctx); err == nil && rerr != nil && !errors.Is(rerr, ErrLeaseLost) {
			err = rerr
		}
		if err == nil {
			err = ErrBusy
		}
		return nil, err
	}
	lease.keepFresh(ctx)
	return lease, nil
}
