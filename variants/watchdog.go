package variants

import (
	"context"
	_ "embed"
	"sync"
	"time"
)

//go:embed lua/compare_pexpire.lua
var comparePExpireLua string

var comparePExpire = NewScript(comparePExpireLua)

func init() {
	Register(Info{
		Name:   "watchdog",
		Kind:   KindLock,
		Source: "seed 002 §1.6 引入watch dog(看门狗)",
		Summary: "lua-release plus a renewal loop: every TTL/3 a Lua compare-and-PEXPIRE extends the lease; " +
			"a failed renewal tells the holder at once (Lost)",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, Renewal: true},
		DefaultRetry: "fixed:1ms",
	}, func(cfg Config) (Lock, error) { return &watchdogLock{base: newBase(cfg)}, nil })
}

// watchdogLock renews its lease while it is held, so a short TTL frees the
// lock of a crashed holder soon while a live holder keeps it as long as it
// needs. The seed's example renews a 1 s TTL when about 300 ms remain; here
// the renewal runs every TTL/3, leaving two renewal chances before expiry.
type watchdogLock struct{ base }

var _ Lock = (*watchdogLock)(nil)

func (l *watchdogLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		acquired, err := l.setNX(ctx, name, l.compareAndDelete)
		if err != nil {
			return nil, err
		}
		w := &watchedLease{lease: *acquired.(*lease), lost: make(chan struct{}), stop: make(chan struct{})}
		w.done.Add(1)
		go w.renew(context.WithoutCancel(ctx), l)
		return w, nil
	})
}

// watchedLease is a lease with its renewal goroutine.
type watchedLease struct {
	lease
	lost     chan struct{} // closed by renew when a renewal fails
	stop     chan struct{} // closed by Release
	stopOnce sync.Once
	done     sync.WaitGroup
}

func (w *watchedLease) Lost() <-chan struct{} { return w.lost }

// Release stops the renewals, then deletes the lock if it is still ours.
func (w *watchedLease) Release(ctx context.Context) error {
	w.stopOnce.Do(func() { close(w.stop) })
	w.done.Wait()
	return w.lease.Release(ctx)
}

func (w *watchedLease) renew(ctx context.Context, l *watchdogLock) {
	defer w.done.Done()
	interval := max(l.cfg.TTL/3, time.Millisecond)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-ticker.C:
		}
		// A renewal may not outlive the lease it renews.
		rctx, cancel := context.WithTimeout(ctx, l.cfg.TTL-interval)
		n, err := comparePExpire.Run(rctx, l.cfg.Conn, []string{w.key}, w.token, l.ttlMillis())
		cancel()
		if err != nil || n != int64(1) {
			close(w.lost)
			return
		}
	}
}
