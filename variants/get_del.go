package variants

import "context"

func init() {
	Register(Info{
		Name:         "get-del",
		Kind:         KindLock,
		Source:       "【Redis应用】分布式锁 §1.4 引入校验id",
		Summary:      "SET key token NX PX ttl. Release: GET, compare the token, then DEL: two round trips, not atomic",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true},
		DefaultRetry: "fixed:1ms",
		Steps:        []Step{{StepBetweenGetAndDel, "release: GET matched our token, DEL not yet sent (the race of 【Redis应用】分布式锁 §1.5)"}},
	}, func(cfg Config) (Lock, error) { return &getDelLock{base: newBase(cfg)}, nil })
}

// getDelLock checks the owner before deleting, but in two steps: the lease
// can expire and another client acquire between the GET and the DEL, whose
// lock the DEL then removes (【Redis应用】分布式锁 §1.5 describes the race).
type getDelLock struct{ base }

var _ Lock = (*getDelLock)(nil)

func (l *getDelLock) Acquire(ctx context.Context, name string) (Lease, error) {
	key := l.key(name)
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		return l.setNX(ctx, key, l.release)
	})
}

func (l *getDelLock) release(ctx context.Context, key, token string) error {
	held, err := l.cfg.Conn.Do(ctx, Cmd("GET", key))
	if err != nil {
		return err
	}
	if held != token {
		return ErrLeaseLost
	}
	if err := l.step(ctx, StepBetweenGetAndDel); err != nil {
		return err
	}
	n, err := l.cfg.Conn.Do(ctx, Cmd("DEL", key))
	if err != nil {
		return err
	}
	if n != int64(1) {
		return ErrLeaseLost
	}
	return nil
}
