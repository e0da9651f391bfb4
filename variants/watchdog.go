package variants

import (
	"context"
	_ "embed"
)

//go:embed lua/compare_pexpire.lua
var comparePExpireLua string

var comparePExpire = NewScript(comparePExpireLua)

func init() {
	Register(Info{
		Name:   "watchdog",
		Kind:   KindLock,
		Source: "【Redis应用】分布式锁 §1.6 引入watch dog(看门狗); Distributed Locks with Redis (redis.io): Making the algorithm more reliable: Extending the lock",
		Summary: "lua-release plus a renewal loop: every TTL/3 a Lua compare-and-PEXPIRE extends the lease; " +
			"a failed renewal tells the holder at once (Lost)",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, Renewal: true},
		DefaultRetry: "fixed:1ms",
		Steps:        []Step{{StepBeforeRenewal, "before each renewal's compare-and-PEXPIRE"}},
	}, func(cfg Config) (Lock, error) { return &watchdogLock{base: newBase(cfg)}, nil })
}

// watchdogLock renews its lease while it is held, so a short TTL frees the
// lock of a crashed holder soon while a live holder keeps it as long as it
// needs. The article's example (§1.6) renews a 1 s TTL when about 300 ms
// remain; here the renewal runs every TTL/3, leaving two renewal chances
// before expiry.
type watchdogLock struct{ base }

var (
	_ OptionsAcquirer = (*watchdogLock)(nil)
	_ Renewed         = (*watchedLease)(nil)
)

func (l *watchdogLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire, its renewals told to opts.Renewals.
func (l *watchdogLock) AcquireWith(ctx context.Context, name string, opts AcquireOptions) (Lease, error) {
	key := l.key(name)
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		acquired, err := l.setNX(ctx, key, l.compareAndDelete)
		if err != nil {
			return nil, err
		}
		w := &watchedLease{lease: acquired.(*tokenLease).lease}
		interval := l.cfg.TTL / 3
		w.renewal = startRenewal(ctx, &l.base, opts.Renewals, interval, l.cfg.TTL-interval, func(ctx context.Context) error {
			n, err := comparePExpire.Run(ctx, l.cfg.Conn, []string{w.key}, w.token, l.ttlMillis())
			if err == nil && n != int64(1) {
				err = ErrLeaseLost
			}
			return err
		})
		return w, nil
	})
}

// watchedLease is a lease with its renewals.
type watchedLease struct {
	lease
	*renewal
}

func (w *watchedLease) Lost() <-chan struct{} { return w.renewal.Lost() }

// Release stops the renewals, then deletes the lock if it is still ours.
func (w *watchedLease) Release(ctx context.Context) error {
	w.Stop()
	return w.lease.Release(ctx)
}
