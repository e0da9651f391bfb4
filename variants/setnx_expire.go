package variants

import "context"

func init() {
	Register(Info{
		Name:   "setnx-expire",
		Kind:   KindLock,
		Source: "Redis in Action (Carlson 2013) §6.2.5 Locks with timeouts",
		Summary: "SETNX then PEXPIRE as two commands; a waiter that finds the lock without " +
			"expiry (PTTL -1, holder died between the two) sets it. Release as simple",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true},
		DefaultRetry: "fixed:1ms",
		Steps: []Step{
			{StepAfterSetNX, "acquire: SETNX succeeded, PEXPIRE not yet sent (a crash here leaves a lock without expiry)"},
			{StepBetweenGetAndExec, "release: GET matched our token, MULTI/DEL/EXEC not yet sent"},
		},
	}, func(cfg Config) (Lock, error) { return &setnxExpireLock{base: newBase(cfg)}, nil })
}

// setnxExpireLock is the book's lock with a timeout (Redis in Action
// §6.2.5). The pause between tries is the retry policy (1 ms, as the book)
// and the TTL is set in milliseconds (PEXPIRE, PTTL), not whole seconds, so
// that --ttl means the same for every variant. The book's Python tests
// `not ttl`, which misses -1; the test here is == -1.
type setnxExpireLock struct{ base }

var _ Lock = (*setnxExpireLock)(nil)

func (l *setnxExpireLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		key, token := l.key(name), l.token()
		conn := l.cfg.Conn
		reply, err := conn.Do(ctx, Cmd("SETNX", key, token))
		if err != nil {
			return nil, err
		}
		if reply == int64(1) {
			if err := l.step(ctx, StepAfterSetNX); err != nil {
				return nil, err
			}
			if _, err := conn.Do(ctx, Cmd("PEXPIRE", key, l.ttlMillis())); err != nil {
				return nil, err
			}
			return &lease{key: key, token: token, release: l.watchRelease}, nil
		}
		ttl, err := conn.Do(ctx, Cmd("PTTL", key))
		if err != nil {
			return nil, err
		}
		if ttl == int64(-1) {
			if _, err := conn.Do(ctx, Cmd("PEXPIRE", key, l.ttlMillis())); err != nil {
				return nil, err
			}
		}
		return nil, ErrBusy
	})
}
