package variants_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// semaphores are the counting semaphores, the basic one first.
var semaphores = []string{"sem-basic", "sem-fair", "sem-locked"}

// fairSemaphores keep an owner ZSET and a counter, and refresh their permits.
var fairSemaphores = []string{"sem-fair", "sem-locked"}

// forSemaphores runs body for each named semaphore on every client library.
func forSemaphores(t *testing.T, names []string, body func(*testing.T, *harness)) {
	for _, v := range names {
		t.Run(v, func(t *testing.T) { forVariant(t, v, body) })
	}
}

// offsetClock is a client's clock that runs offset from the machine's.
type offsetClock struct{ offset time.Duration }

func (c offsetClock) Now() time.Time { return time.Now().Add(c.offset) }

// semKey is the key of the semaphore called name; suffix "" is the timeout
// ZSET, ":owner" the owner ZSET, ":counter" and ":guard" the others.
func (h *harness) semKey(name, suffix string) string { return h.prefix + "{" + name + "}" + suffix }

func (h *harness) fair() bool { return h.variant != "sem-basic" }

// wantHolders checks that the semaphore's timeout ZSET, and the owner ZSET of
// the fair ones, hold n tokens.
func (h *harness) wantHolders(t *testing.T, name string, n int64, why string) {
	t.Helper()
	suffixes := []string{""}
	if h.fair() {
		suffixes = append(suffixes, ":owner")
	}
	for _, s := range suffixes {
		if got, _ := h.do(t, "ZCARD", h.semKey(name, s)).(int64); got != n {
			t.Errorf("%s: ZCARD %s = %d; want %d", why, h.semKey(name, s), got, n)
		}
	}
}

// tokens lists the tokens in the semaphore's timeout ZSET.
func (h *harness) tokens(t *testing.T, name string) []string {
	t.Helper()
	reply, _ := h.do(t, "ZRANGE", h.semKey(name, ""), "0", "-1").([]any)
	var out []string
	for _, r := range reply {
		s, _ := r.(string)
		out = append(out, s)
	}
	return out
}

// TestSemaphoresListed keeps the lists above in step with the registry.
func TestSemaphoresListed(t *testing.T) {
	var registered []string
	for _, v := range variants.Names() {
		if info, err := variants.Lookup(v); err == nil && info.Kind == variants.KindSemaphore {
			registered = append(registered, v)
		}
	}
	if !slices.Equal(registered, semaphores) {
		t.Errorf("registered semaphores %v; these tests cover %v", registered, semaphores)
	}
}

func TestSemaphoreLimit(t *testing.T) {
	forSemaphores(t, semaphores, func(t *testing.T, h *harness) {
		const limit = 3
		cfg := variants.Config{Limit: limit, Retry: retryNone}
		var leases []variants.Lease
		for range limit { // one Lock per simulated client
			leases = append(leases, h.acquire(t, h.lock(t, cfg), "res"))
		}
		h.wantHolders(t, "res", limit, "with every permit taken")

		fourth := h.lock(t, cfg)
		lease, err := fourth.Acquire(h.ctx, "res")
		if !errors.Is(err, variants.ErrBusy) || lease != nil {
			t.Fatalf("a fourth Acquire with limit %d = %v, %v; want nil, ErrBusy", limit, lease, err)
		}
		h.wantHolders(t, "res", limit, "after a rejected acquire (its token must be removed)")

		if err := leases[0].Release(h.ctx); err != nil {
			t.Fatalf("Release: %v", err)
		}
		h.wantHolders(t, "res", limit-1, "after one release")
		h.acquire(t, fourth, "res")
		h.wantHolders(t, "res", limit, "after the fourth took the freed permit")
	})
}

// TestSemaphoreTimeout: sem-basic does not refresh, so a holder past the
// timeout loses its permit to the next acquire.
func TestSemaphoreTimeout(t *testing.T) {
	forVariant(t, "sem-basic", func(t *testing.T, h *harness) {
		const ttl = 200 * time.Millisecond
		cfg := variants.Config{TTL: ttl, Limit: 1, Retry: retryNone}
		first := h.acquire(t, h.lock(t, cfg), "res")
		if _, err := h.lock(t, cfg).Acquire(h.ctx, "res"); !errors.Is(err, variants.ErrBusy) {
			t.Fatalf("Acquire before the holder timed out: %v; want ErrBusy", err)
		}

		time.Sleep(ttl + 100*time.Millisecond)
		second := h.acquire(t, h.lock(t, cfg), "res")
		h.wantHolders(t, "res", 1, "after the timed-out permit was taken over")
		if err := first.Release(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
			t.Errorf("Release of the timed-out lease = %v; want ErrLeaseLost", err)
		}
		if err := second.Release(h.ctx); err != nil {
			t.Errorf("Release of the new holder: %v", err)
		}
	})
}

func TestSemaphoreRefresh(t *testing.T) {
	t.Run("renewed past the timeout", func(t *testing.T) {
		const ttl = 300 * time.Millisecond
		for _, v := range fairSemaphores {
			t.Run(v, func(t *testing.T) {
				t.Parallel() // each holds for a second
				forVariant(t, v, func(t *testing.T, h *harness) {
					t.Parallel()
					cfg := variants.Config{TTL: ttl, Limit: 1, Retry: retryNone}
					lease := h.acquire(t, h.lock(t, cfg), "res")
					select {
					case <-lease.Lost():
						t.Fatal("Lost() closed while the permit was held and refreshed")
					case <-time.After(time.Second):
					}
					if _, err := h.lock(t, cfg).Acquire(h.ctx, "res"); !errors.Is(err, variants.ErrBusy) {
						t.Errorf("after 1s held with TTL %v, another Acquire = %v; want ErrBusy (permit kept)", ttl, err)
					}

					tokens := h.tokens(t, "res")
					if len(tokens) != 1 {
						t.Fatalf("timeout ZSET holds %q; want the holder's token only", tokens)
					}
					h.do(t, "ZREM", h.semKey("res", ""), tokens[0])
					removed := time.Now()
					select {
					case <-lease.Lost():
						t.Logf("Lost() closed %v after the token was removed", time.Since(removed))
					case <-time.After(2 * ttl):
						t.Fatalf("Lost() not closed %v after the token was removed", 2*ttl)
					}
					if err := lease.Release(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
						t.Errorf("Release of a lost permit = %v; want ErrLeaseLost", err)
					}
					h.wantHolders(t, "res", 0, "after the lost permit's refresh")
				})
			})
		}
	})

	t.Run("by hand", func(t *testing.T) {
		// A TTL long enough that the renewals do not run during the test.
		forSemaphores(t, fairSemaphores, func(t *testing.T, h *harness) {
			lease := h.acquire(t, h.lock(t, variants.Config{TTL: 10 * time.Second}), "res")
			r, ok := lease.(variants.Refresher)
			if !ok {
				t.Fatalf("%T does not implement variants.Refresher", lease)
			}
			if err := r.Refresh(h.ctx); err != nil {
				t.Fatalf("Refresh of a held permit: %v", err)
			}
			h.wantHolders(t, "res", 1, "after a refresh")

			tokens := h.tokens(t, "res")
			if len(tokens) != 1 {
				t.Fatalf("timeout ZSET holds %q; want the holder's token only", tokens)
			}
			h.do(t, "ZREM", h.semKey("res", ""), tokens[0])
			if err := r.Refresh(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
				t.Errorf("Refresh after the token was removed = %v; want ErrLeaseLost", err)
			}
			h.wantHolders(t, "res", 0, "after a refresh found the permit gone (it must not re-add it)")
			if err := lease.Release(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
				t.Errorf("Release of a lost permit = %v; want ErrLeaseLost", err)
			}
		})
	})
}

// TestSemaphoreClockSkew: with one permit held by a client on the machine's
// clock, a client whose clock is 2s behind tries to acquire.
func TestSemaphoreClockSkew(t *testing.T) {
	const behind = -2 * time.Second
	tests := []struct {
		variant   string
		wantErr   error // of the slow client's acquire
		rationale string
	}{
		{"sem-basic", nil, "the slow clock scores lower and ranks first: it steals the permit (the flaw of Redis in Action §6.3.1)"},
		{"sem-fair", variants.ErrBusy, "the counter, not the clock, ranks"},
		{"sem-locked", variants.ErrBusy, "the counter, not the clock, ranks"},
	}
	for _, tc := range tests {
		t.Run(tc.variant, func(t *testing.T) {
			forVariant(t, tc.variant, func(t *testing.T, h *harness) {
				holder := h.acquire(t, h.lock(t, variants.Config{Limit: 1, Retry: retryNone}), "res")
				slow := h.lock(t, variants.Config{Limit: 1, Retry: retryNone, Clock: offsetClock{behind}})
				lease, err := slow.Acquire(h.ctx, "res")
				if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
					t.Fatalf("Acquire with a clock %v behind = %v; want %v (%s)", -behind, err, tc.wantErr, tc.rationale)
				}
				if err == nil {
					t.Logf("%s: the client %v behind took the held permit", h.variant, -behind)
					h.wantHolders(t, "res", 2, "two holders of a one-permit semaphore")
					if err := lease.Release(h.ctx); err != nil {
						t.Errorf("Release of the stolen permit: %v", err)
					}
				} else {
					h.wantHolders(t, "res", 1, "after the slow client was turned away")
				}
				if err := holder.Release(h.ctx); err != nil {
					t.Errorf("Release of the holder: %v", err)
				}
			})
		})
	}
}

// TestSemLockedGuardHeld: no guard, no permit, and quickly.
func TestSemLockedGuardHeld(t *testing.T) {
	forVariant(t, "sem-locked", func(t *testing.T, h *harness) {
		guard := h.semKey("res", ":guard")
		h.do(t, "SET", guard, "x", "PX", "5000")
		t.Cleanup(func() { _, _ = h.conn.Do(context.Background(), variants.Cmd("DEL", guard)) })

		start := time.Now()
		lease, err := h.lock(t, variants.Config{Retry: retryNone}).Acquire(h.ctx, "res")
		took := time.Since(start)
		if !errors.Is(err, variants.ErrBusy) || lease != nil {
			t.Fatalf("Acquire while the guard is held = %v, %v; want nil, ErrBusy", lease, err)
		}
		if took > 100*time.Millisecond {
			t.Errorf("Acquire gave up after %v; want within 100ms (the guard wait is 10ms)", took)
		}
		if got := h.do(t, "GET", guard); got != "x" {
			t.Errorf("the failed acquire changed the guard to %#v", got)
		}
		if n, _ := h.do(t, "EXISTS", h.semKey("res", ":counter")).(int64); n != 0 {
			t.Errorf("the acquire without the guard INCRed the counter")
		}
		h.wantHolders(t, "res", 0, "after an acquire without the guard")
	})
}

func TestSemaphoreSteps(t *testing.T) {
	tests := []struct {
		variant string
		want    []string // the steps of one acquire, in order
	}{
		{"sem-basic", nil},
		{"sem-fair", []string{variants.StepBetweenTransactions}},
		{"sem-locked", []string{variants.StepGuardHeld, variants.StepBetweenTransactions}},
	}
	for _, tc := range tests {
		t.Run(tc.variant, func(t *testing.T) {
			forVariant(t, tc.variant, func(t *testing.T, h *harness) {
				var mu sync.Mutex // AtStep also runs on the renewal goroutine
				var steps []string
				record := func(_ context.Context, step string) error {
					mu.Lock()
					defer mu.Unlock()
					steps = append(steps, step)
					return nil
				}
				lease := h.acquire(t, h.lock(t, variants.Config{AtStep: record}), "res")
				mu.Lock()
				got := slices.Clone(steps)
				mu.Unlock()
				if !slices.Equal(got, tc.want) {
					t.Errorf("acquire ran steps %q; want %q", got, tc.want)
				}
				if err := lease.Release(h.ctx); err != nil {
					t.Fatalf("Release: %v", err)
				}

				for _, abortAt := range tc.want {
					injected := errors.New("injected at " + abortAt)
					abort := func(_ context.Context, step string) error {
						if step == abortAt {
							return injected
						}
						return nil
					}
					lease, err := h.lock(t, variants.Config{AtStep: abort}).Acquire(h.ctx, "res")
					if !errors.Is(err, injected) || lease != nil {
						t.Errorf("Acquire aborted at %s = %v, %v; want nil, the step's error", abortAt, lease, err)
					}
					h.wantHolders(t, "res", 0, "after an acquire aborted at "+abortAt)
					if n, _ := h.do(t, "EXISTS", h.semKey("res", ":guard")).(int64); n != 0 {
						t.Errorf("an acquire aborted at %s left the guard held", abortAt)
					}
				}
				// The aborts left the semaphore usable.
				if err := h.acquire(t, h.lock(t, variants.Config{Retry: retryNone}), "res").Release(h.ctx); err != nil {
					t.Errorf("Release after the aborted acquires: %v", err)
				}
			})
		})
	}
}

// TestSemaphoreKeysShareHashTag: the fair semaphores use several keys in one
// transaction and in ZINTERSTORE; in a cluster they must share a slot.
func TestSemaphoreKeysShareHashTag(t *testing.T) {
	const name = "job:42"
	forSemaphores(t, fairSemaphores, func(t *testing.T, h *harness) {
		seen := map[string]bool{}
		see := func() {
			for _, k := range h.keys(t) {
				s, _ := k.(string)
				seen[s] = true
			}
		}
		atStep := func(_ context.Context, step string) error {
			if step == variants.StepBetweenTransactions { // counter INCRed, guard held
				see()
			}
			return nil
		}
		lease := h.acquire(t, h.lock(t, variants.Config{AtStep: atStep}), name)
		see()

		want := []string{h.semKey(name, ""), h.semKey(name, ":owner"), h.semKey(name, ":counter")}
		if h.variant == "sem-locked" {
			want = append(want, h.semKey(name, ":guard"))
		}
		for _, k := range want {
			if !seen[k] {
				t.Errorf("key %s not seen during the acquire; saw %v", k, seen)
			}
		}
		for k := range seen {
			if !strings.Contains(k, "{"+name+"}") {
				t.Errorf("key %s does not contain the hash tag {%s}", k, name)
			}
		}
		if err := lease.Release(h.ctx); err != nil {
			t.Errorf("Release: %v", err)
		}
	})
}
