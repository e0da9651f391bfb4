package variants

import (
	"context"
	"fmt"
)

func init() {
	Register(Info{
		Name:   "simple",
		Kind:   KindLock,
		Source: "Redis in Action (Carlson 2013) §6.2.3 Building a lock in Redis",
		Summary: "SETNX key token, retried with a pause until the acquire timeout; no expiry. " +
			"Release: WATCH, GET, compare, MULTI/DEL/EXEC, retried when EXEC aborts",
		Claims:       Claims{OwnerCheckedRelease: true, AtomicRelease: true},
		DefaultRetry: "fixed:1ms",
		Steps:        []Step{{StepBetweenGetAndExec, "release: GET matched our token, MULTI/DEL/EXEC not yet sent"}},
	}, func(cfg Config) (Lock, error) { return &simpleLock{base: newBase(cfg)}, nil })
}

// simpleLock is the book's simple lock (Redis in Action §6.2.3). A loop
// that spins on SETNX without pausing would measure its own spinning; the
// book's loop, implemented here, pauses about 1 ms between tries (the retry
// policy). A crashed holder leaves the lock held forever.
type simpleLock struct{ base }

var _ Lock = (*simpleLock)(nil)

func (l *simpleLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		key, token := l.key(name), l.token()
		reply, err := l.cfg.Conn.Do(ctx, Cmd("SETNX", key, token))
		if err != nil {
			return nil, err
		}
		if reply != int64(1) {
			return nil, ErrBusy
		}
		return &lease{key: key, token: token, release: l.watchRelease}, nil
	})
}

// watchRelease deletes key if it still holds token, checked under WATCH so
// that a change between the GET and the DEL aborts the transaction, which is
// then tried again. It is the release of simple and setnx-expire.
func (b *base) watchRelease(ctx context.Context, key, token string) error {
	return b.cfg.Conn.Dedicated(ctx, key, func(conn Conn) error {
		for {
			if _, err := conn.Do(ctx, Cmd("WATCH", key)); err != nil {
				return err
			}
			held, err := conn.Do(ctx, Cmd("GET", key))
			if err != nil {
				return err
			}
			if held != token {
				if _, err := conn.Do(ctx, Bare("UNWATCH")); err != nil {
					return err
				}
				return ErrLeaseLost
			}
			if err := b.step(ctx, StepBetweenGetAndExec); err != nil {
				return err
			}
			res := conn.DoMulti(ctx, Bare("MULTI"), Cmd("DEL", key), Bare("EXEC"))
			for _, r := range res {
				if r.Err != nil {
					return fmt.Errorf("variants: release transaction: %w", r.Err)
				}
			}
			if res[len(res)-1].Value != nil {
				return nil // EXEC ran: deleted
			}
			// EXEC aborted: the key changed after WATCH; look again.
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	})
}
