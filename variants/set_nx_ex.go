package variants

import "context"

func init() {
	Register(Info{
		Name:         "set-nx-ex",
		Kind:         KindLock,
		Source:       "【Redis应用】分布式锁 §1.3 引入过期时间; Distributed Locks with Redis (redis.io): Correct Implementation with a Single Instance",
		Summary:      "SET key token NX PX ttl in one command. Release: plain DEL, no owner check",
		Claims:       Claims{TTL: true},
		DefaultRetry: "fixed:1ms",
	}, func(cfg Config) (Lock, error) {
		l := &setNXEXLock{base: newBase(cfg)}
		l.releaseDel = l.release
		return l, nil
	})
}

// setNXEXLock sets the lock and its expiry atomically, but releases by plain
// DEL: a holder whose lease expired deletes whoever holds the lock now. The
// article (【Redis应用】分布式锁 §1.3) gives no retry pause; lockbench uses
// Redis in Action's 1 ms (§6.2.3) so the designs compare on the same footing.
type setNXEXLock struct {
	base
	releaseDel func(ctx context.Context, key, token string) error // release, bound once
}

var _ Lock = (*setNXEXLock)(nil)

func (l *setNXEXLock) Acquire(ctx context.Context, name string) (Lease, error) {
	key := l.key(name)
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		return l.setNX(ctx, key, l.releaseDel)
	})
}

// release deletes the key whoever holds it. A reply of 0 means the lease had
// already expired.
func (l *setNXEXLock) release(ctx context.Context, key, _ string) error {
	n, err := l.doKey(ctx, "DEL", key)
	if err != nil {
		return err
	}
	if n != int64(1) {
		return ErrLeaseLost
	}
	return nil
}
