package variants

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// errAborted: a MULTI/EXEC transaction was aborted by a WATCHed key.
var errAborted = errors.New("variants: transaction aborted")

// semKeys are the keys of the semaphore called name. They share the hash
// tag {name}, so in a Redis Cluster they live in one slot and can be used
// together in a transaction or ZINTERSTORE.
type semKeys struct {
	timeout string // ZSET: token → client time of acquire or refresh (Unix µs)
	owner   string // ZSET: token → counter value (sem-fair)
	counter string // INCR counter (sem-fair)
	guard   string // the guard lock of sem-locked
}

func (b *base) semKeys(name string) semKeys {
	k := b.cfg.Prefix + "{" + name + "}"
	return semKeys{timeout: k, owner: k + ":owner", counter: k + ":counter", guard: k + ":guard"}
}

// clockMicros is the client's clock in Unix microseconds, the score of the
// timeout ZSET, and the score below which holders have timed out.
// Microseconds, not milliseconds: Redis ranks equal scores by member, so
// with a coarse score a newcomer whose random token sorts first would
// outrank holders that acquired in the same millisecond. Unix microseconds
// stay exact in a score (a double) until the year 2255.
func (b *base) clockMicros() (now, cutoff string) {
	us := b.cfg.Clock.Now().UnixMicro()
	return strconv.FormatInt(us, 10), strconv.FormatInt(us-b.cfg.TTL.Microseconds(), 10)
}

// multiExec runs cmds in one MULTI/EXEC and returns their replies. An
// aborted transaction returns errAborted.
func multiExec(ctx context.Context, conn Conn, cmds ...Command) ([]any, error) {
	all := make([]Command, 0, len(cmds)+2)
	all = append(append(append(all, Bare("MULTI")), cmds...), Bare("EXEC"))
	res := conn.DoMulti(ctx, all...)
	for _, r := range res {
		if r.Err != nil {
			return nil, fmt.Errorf("variants: transaction: %w", r.Err)
		}
	}
	exec := res[len(res)-1].Value
	if exec == nil {
		return nil, errAborted
	}
	replies, ok := exec.([]any)
	if !ok || len(replies) != len(cmds) {
		return nil, fmt.Errorf("variants: transaction: unexpected EXEC reply %v", exec)
	}
	for _, r := range replies {
		if err, ok := r.(error); ok {
			return nil, fmt.Errorf("variants: transaction: %w", err)
		}
	}
	return replies, nil
}

// ranked reports whether a ZRANK reply is below the semaphore's limit.
func (b *base) ranked(reply any) (bool, error) {
	rank, ok := reply.(int64)
	if !ok {
		return false, fmt.Errorf("variants: ZRANK replied %v", reply)
	}
	return rank < int64(b.cfg.Limit), nil
}

// semLease is a permit of a semaphore: its token in the timeout ZSET (and,
// for the fair semaphores, in the owner ZSET), with renewals where the
// variant refreshes.
type semLease struct {
	b       *base
	keys    semKeys
	token   string
	fair    bool
	renewal *renewal        // nil for sem-basic, which does not refresh
	obs     RenewalObserver // told of each refresh; nil: nobody
}

// Refresher is a lease that can be refreshed by hand; Refresh returns
// ErrLeaseLost when the permit had already timed out.
type Refresher interface {
	Refresh(ctx context.Context) error
}

var (
	_ Refresher = (*semLease)(nil)
	_ Renewed   = (*semLease)(nil)
)

func (l *semLease) Token() uint64 { return 0 }

func (l *semLease) Lost() <-chan struct{} {
	if l.renewal == nil {
		return nil
	}
	return l.renewal.Lost()
}

// RenewedAt is when the permit's latest renewal that succeeded was sent;
// zero before the first, and for sem-basic, which does not renew.
func (l *semLease) RenewedAt() time.Time {
	if l.renewal == nil {
		return time.Time{}
	}
	return l.renewal.RenewedAt()
}

// Release removes the token; ErrLeaseLost when it was already gone.
func (l *semLease) Release(ctx context.Context) error {
	if l.renewal != nil {
		l.renewal.Stop()
	}
	return l.remove(ctx)
}

func (l *semLease) remove(ctx context.Context) error {
	conn := l.b.cfg.Conn
	if !l.fair {
		n, err := conn.Do(ctx, Cmd("ZREM", l.keys.timeout, l.token))
		if err == nil && n != int64(1) {
			err = ErrLeaseLost
		}
		return err
	}
	replies, err := multiExec(ctx, conn, Cmd("ZREM", l.keys.timeout, l.token), Cmd("ZREM", l.keys.owner, l.token))
	if err == nil && replies[1] != int64(1) {
		err = ErrLeaseLost
	}
	return err
}

// Refresh re-adds the token's timestamp. When that ZADD added the token
// rather than updated it, the permit had timed out and been dropped: the
// token is removed again and the refresh reports ErrLeaseLost. The
// acquire's AcquireOptions.Renewals is told of it.
func (l *semLease) Refresh(ctx context.Context) error { return observed(ctx, l.obs, l.refresh) }

func (l *semLease) refresh(ctx context.Context) error {
	now, _ := l.b.clockMicros()
	added, err := l.b.cfg.Conn.Do(ctx, Cmd("ZADD", l.keys.timeout, now, l.token))
	if err != nil {
		return err
	}
	if added != int64(0) {
		if err := l.remove(ctx); err != nil && !errors.Is(err, ErrLeaseLost) {
			return err
		}
		return ErrLeaseLost
	}
	return nil
}

// keepFresh starts the renewals of a fair permit: every TTL/3, so that a
// holder whose hold approaches the timeout refreshes in time.
func (l *semLease) keepFresh(ctx context.Context) {
	interval := l.b.cfg.TTL / 3
	l.renewal = startRenewal(ctx, l.b, l.obs, interval, l.b.cfg.TTL-interval, l.refresh)
}
