package variants

import (
	"context"
	_ "embed"
)

//go:embed lua/compare_del.lua
var compareDelLua string

var compareDel = NewScript(compareDelLua)

func init() {
	Register(Info{
		Name:         "lua-release",
		Kind:         KindLock,
		Source:       "【Redis应用】分布式锁 §1.5 引入lua; Distributed Locks with Redis (redis.io): Correct Implementation with a Single Instance",
		Summary:      "SET key token NX PX ttl. Release: Lua compare-and-delete (EVALSHA, EVAL on NOSCRIPT)",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true},
		DefaultRetry: "fixed:1ms",
	}, func(cfg Config) (Lock, error) {
		l := &luaReleaseLock{base: newBase(cfg)}
		l.release = l.compareAndDelete
		return l, nil
	})
}

// luaReleaseLock closes get-del's race by comparing and deleting in one
// script. A holder paused past its TTL still loses the lock silently.
type luaReleaseLock struct {
	base
	release func(ctx context.Context, key, token string) error // compareAndDelete, bound once
}

var _ Lock = (*luaReleaseLock)(nil)

func (l *luaReleaseLock) Acquire(ctx context.Context, name string) (Lease, error) {
	key := l.key(name)
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		return l.setNX(ctx, key, l.release)
	})
}

// compareAndDelete is lua-release's release, shared by the variants built
// on it.
func (b *base) compareAndDelete(ctx context.Context, key, token string) error {
	buf := b.takeArgv()
	n, err := compareDel.runIn(ctx, b.cfg.Conn, buf[:], []string{key}, []string{token})
	b.putArgv(buf)
	if err != nil {
		return err
	}
	if n != int64(1) {
		return ErrLeaseLost
	}
	return nil
}
