package variants

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// renewal keeps a lease alive from its own goroutine, the way a watchdog
// thread does: every interval it calls renew, and the first renewal that
// fails closes lost, so the holder learns at once that the lease is gone.
type renewal struct {
	lost     chan struct{} // closed when a renewal fails
	stop     chan struct{} // closed by Stop
	stopOnce sync.Once
	done     sync.WaitGroup
	// renewed is when the latest renewal that succeeded was sent (Unix
	// nanoseconds), 0 before the first.
	renewed atomic.Int64
}

// startRenewal renews every interval: at each, the step StepBeforeRenewal
// of b, then renew, told to obs (nil: nobody) as one renewal. Each step and
// renew together may take at most timeout (a renewal may not outlive the
// lease it renews). The renewals outlive ctx's cancellation: only Stop
// ends them, and none starts once Stop was called.
func startRenewal(ctx context.Context, b *base, obs RenewalObserver, interval, timeout time.Duration, renew func(context.Context) error) *renewal {
	r := &renewal{lost: make(chan struct{}), stop: make(chan struct{})}
	ctx = context.WithoutCancel(ctx)
	interval = max(interval, time.Millisecond)
	timeout = max(timeout, time.Millisecond)
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		ticker := time.NewTicker(interval)
		defer ticker.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-ticker.C:
			}
			if r.stopped() { // the tick and Stop came together
				return
			}
			rctx, cancel := context.WithTimeout(ctx, timeout)
			err := b.step(rctx, StepBeforeRenewal)
			if err == nil && r.stopped() { // Stop was called during the step
				cancel()
				return
			}
			sent := time.Now()
			if err == nil {
				err = observed(rctx, obs, renew)
			}
			cancel()
			if err != nil {
				close(r.lost)
				return
			}
			r.renewed.Store(sent.UnixNano())
		}
	}()
	return r
}

// stopped reports whether Stop was called.
func (r *renewal) stopped() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

// Lost is closed when a renewal failed.
func (r *renewal) Lost() <-chan struct{} { return r.lost }

// RenewedAt is when the latest renewal that succeeded was sent, zero
// before the first (see Renewed).
func (r *renewal) RenewedAt() time.Time {
	if n := r.renewed.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// Stop ends the renewals and waits until none is running.
func (r *renewal) Stop() {
	r.stopOnce.Do(func() { close(r.stop) })
	r.done.Wait()
}
