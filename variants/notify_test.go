package variants_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// notes collects what a variant reports through Config.Note.
type notes struct {
	mu     sync.Mutex
	counts map[string]int
}

func (n *notes) note(name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.counts == nil {
		n.counts = map[string]int{}
	}
	n.counts[name]++
}

func (n *notes) get(name string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.counts[name]
}

func (n *notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return fmt.Sprint(n.counts)
}

// notifyFallback is a fallback far longer than any wake-up these tests
// wait for: an acquisition within it came from a wake token, not the timer.
var notifyFallback = variants.RetryPolicy{Kind: variants.RetryFixed, Min: 5 * time.Second, Max: 5 * time.Second}

// outcome is what an Acquire returned, and how long it took.
type outcome struct {
	lease variants.Lease
	err   error
	took  time.Duration
}

// acquireAsync acquires name with l in a goroutine.
func acquireAsync(ctx context.Context, l variants.Lock, name string) <-chan outcome {
	out := make(chan outcome, 1)
	go func() {
		start := time.Now()
		lease, err := l.Acquire(ctx, name)
		out <- outcome{lease, err, time.Since(start)}
	}()
	return out
}

// A waiter blocked in BLPOP takes the lock as soon as the holder releases,
// long before its fallback; afterwards only expiring helper keys remain.
func TestNotifyWakesWaiter(t *testing.T) {
	forVariant(t, "notify", func(t *testing.T, h *harness) {
		holder := h.acquire(t, h.lock(t, variants.Config{}), "res")
		var n notes
		tried := make(chan struct{}, 1)
		waiter := h.lock(t, variants.Config{Retry: notifyFallback, Note: n.note, OnAttempt: func(err error) {
			if errors.Is(err, variants.ErrBusy) {
				select {
				case tried <- struct{}{}:
				default:
				}
			}
		}})
		got := acquireAsync(h.ctx, waiter, "res")
		<-tried
		time.Sleep(50 * time.Millisecond) // into its BLPOP
		released := time.Now()
		if err := holder.Release(h.ctx); err != nil {
			t.Fatalf("Release: %v", err)
		}
		o := <-got
		if o.err != nil {
			t.Fatalf("the waiter's Acquire: %v", o.err)
		}
		if after := time.Since(released); after > 500*time.Millisecond {
			t.Errorf("the waiter took the lock %v after the release; want far less than its %v fallback", after, notifyFallback.Min)
		}
		if n.get(variants.NoteWoken) != 1 || n.get(variants.NoteFallback) != 0 {
			t.Errorf("notes %v; want woken=1", &n)
		}
		if err := o.lease.Release(h.ctx); err != nil {
			t.Fatalf("the waiter's Release: %v", err)
		}
		h.wantOnlyExpiring(t, 2*time.Second)
	})
}

// A release that lands between the waiter's failed try and its BLPOP is
// not lost: the token waits in the list. The holder releases from inside
// the waiter's first busy try.
func TestNotifyTokenBeforeListening(t *testing.T) {
	forVariant(t, "notify", func(t *testing.T, h *harness) {
		holder := h.acquire(t, h.lock(t, variants.Config{}), "res")
		var (
			n          notes
			releaseErr error
			once       sync.Once
		)
		waiter := h.lock(t, variants.Config{Retry: notifyFallback, Note: n.note, OnAttempt: func(err error) {
			if errors.Is(err, variants.ErrBusy) {
				once.Do(func() { releaseErr = holder.Release(h.ctx) })
			}
		}})
		o := <-acquireAsync(h.ctx, waiter, "res")
		if o.err != nil || releaseErr != nil {
			t.Fatalf("the waiter's Acquire: %v; the holder's Release: %v", o.err, releaseErr)
		}
		t.Cleanup(func() { _ = o.lease.Release(context.Background()) })
		if o.took > 500*time.Millisecond || n.get(variants.NoteWoken) != 1 {
			t.Errorf("acquired after %v with notes %v; want at once, woken=1", o.took, &n)
		}
	})
}

// A lock that goes away without a release (it expired: a crashed holder)
// leaves no token; the waiter takes it at its fallback.
func TestNotifyFallback(t *testing.T) {
	forVariant(t, "notify", func(t *testing.T, h *harness) {
		h.acquire(t, h.lock(t, variants.Config{}), "res")
		var n notes
		const fallback = 100 * time.Millisecond
		waiter := h.lock(t, variants.Config{Retry: variants.RetryPolicy{Kind: variants.RetryFixed, Min: fallback, Max: fallback}, Note: n.note})
		got := acquireAsync(h.ctx, waiter, "res")
		time.Sleep(30 * time.Millisecond)
		h.do(t, "DEL", h.prefix+"{res}") // as if it expired
		o := <-got
		if o.err != nil {
			t.Fatalf("Acquire: %v", o.err)
		}
		t.Cleanup(func() { _ = o.lease.Release(context.Background()) })
		if n.get(variants.NoteFallback) != 1 || o.took > time.Second {
			t.Errorf("acquired after %v with notes %v; want fallback=1 within about %v", o.took, &n, fallback)
		}
	})
}

// A waiter whose context ends returns at once, not at its BLPOP's timeout.
func TestNotifyCancelUnblocks(t *testing.T) {
	forVariant(t, "notify", func(t *testing.T, h *harness) {
		h.acquire(t, h.lock(t, variants.Config{}), "res")
		ctx, cancel := context.WithCancel(h.ctx)
		defer cancel()
		got := acquireAsync(ctx, h.lock(t, variants.Config{Retry: notifyFallback}), "res")
		time.Sleep(100 * time.Millisecond)
		cancel()
		o := <-got
		if !errors.Is(o.err, context.Canceled) || o.lease != nil {
			t.Fatalf("Acquire after cancel = %v, %v; want context.Canceled", o.lease, o.err)
		}
		if o.took > time.Second {
			t.Errorf("Acquire returned %v after it started, 100ms after the cancel; want at once", o.took)
		}
		h.wantOnlyExpiring(t, 2*time.Second, h.prefix+"{res}")
	})
}

// wantOnlyExpiring checks that every key under the harness's prefix, but
// those in except, expires within limit.
func (h *harness) wantOnlyExpiring(t *testing.T, limit time.Duration, except ...string) {
	t.Helper()
	for _, k := range h.keys(t) {
		key, _ := k.(string)
		skip := false
		for _, e := range except {
			skip = skip || key == e
		}
		if skip {
			continue
		}
		pttl, _ := h.do(t, "PTTL", key).(int64)
		if pttl <= 0 || pttl > limit.Milliseconds() {
			t.Errorf("key %s left with PTTL %dms; want it to expire within %v", key, pttl, limit)
		}
	}
}
