package variants_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// testTimeout bounds each subtest's Redis calls, so a stuck server fails
// the test instead of hanging it.
const testTimeout = 10 * time.Second

// harness is one variant on one client library, with its own key prefix.
type harness struct {
	lib, variant string
	info         variants.Info
	conn         variants.Conn
	prefix       string
	ctx          context.Context
}

// connectAll starts one redis-server for the test and connects a client of
// every library to it.
func connectAll(t testing.TB) map[string]clients.Client {
	t.Helper()
	ep := topotest.Endpoint(t)
	conns := map[string]clients.Client{}
	for _, lib := range clients.Names {
		c, err := clients.New(t.Context(), ep, clients.Options{Library: lib})
		if err != nil {
			t.Fatalf("clients.New(%s): %v", lib, err)
		}
		t.Cleanup(c.Close)
		conns[lib] = c
	}
	return conns
}

func newHarness(t *testing.T, conn variants.Conn, lib, variant string) *harness {
	t.Helper()
	info, err := variants.Lookup(variant)
	if err != nil {
		t.Fatal(err)
	}
	if !info.RunsOn(lib) {
		t.Skipf("%s runs on %s only", variant, strings.Join(info.Clients, ", "))
	}
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return &harness{lib: lib, variant: variant, info: info, conn: conn, prefix: "lbtest:" + t.Name() + ":", ctx: ctx}
}

// forEachVariant runs body for every registered variant on every client
// library, against one redis-server.
func forEachVariant(t *testing.T, body func(*testing.T, *harness)) {
	conns := connectAll(t)
	for _, lib := range clients.Names {
		for _, v := range variants.Names() {
			t.Run(lib+"/"+v, func(t *testing.T) { body(t, newHarness(t, conns[lib], lib, v)) })
		}
	}
}

// forVariant runs body for one variant on every client library.
func forVariant(t *testing.T, variant string, body func(*testing.T, *harness)) {
	conns := connectAll(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) { body(t, newHarness(t, conns[lib], lib, variant)) })
	}
}

// lock builds the harness's variant; cfg's Conn defaults to the harness's
// connection and its Prefix is the harness's.
func (h *harness) lock(t *testing.T, cfg variants.Config) variants.Lock {
	t.Helper()
	if cfg.Conn == nil {
		cfg.Conn = h.conn
	}
	cfg.Prefix = h.prefix
	l, err := variants.New(h.variant, cfg)
	if err != nil {
		t.Fatalf("New(%s): %v", h.variant, err)
	}
	if c, ok := l.(io.Closer); ok { // after the releases of acquire's cleanups
		t.Cleanup(func() { _ = c.Close() })
	}
	return l
}

// acquire takes the lock called name, failing the test if it cannot, and
// releases it at the end of the test if the test did not.
func (h *harness) acquire(t *testing.T, l variants.Lock, name string) variants.Lease {
	t.Helper()
	lease, err := l.Acquire(h.ctx, name)
	if err != nil {
		t.Fatalf("Acquire(%s): %v", name, err)
	}
	t.Cleanup(func() { _ = lease.Release(context.Background()) })
	return lease
}

// do sends a command of the test's own on the harness's connection.
func (h *harness) do(t *testing.T, name, key string, args ...string) any {
	t.Helper()
	v, err := h.conn.Do(h.ctx, variants.Cmd(name, key, args...))
	if err != nil {
		t.Fatalf("%s %s: %v", name, key, err)
	}
	return v
}

// keys lists the keys under the harness's prefix.
func (h *harness) keys(t *testing.T) []any {
	t.Helper()
	v, err := h.conn.Do(h.ctx, variants.Bare("SCAN", "0", "MATCH", h.prefix+"*", "COUNT", "1000"))
	reply, ok := v.([]any)
	if err != nil || !ok || len(reply) != 2 {
		t.Fatalf("SCAN = %#v, %v", v, err)
	}
	keys, _ := reply[1].([]any)
	return keys
}

var (
	retryNone  = variants.RetryPolicy{Kind: variants.RetryNone}
	retryFixed = variants.RetryPolicy{Kind: variants.RetryFixed, Min: time.Millisecond, Max: time.Millisecond}
)

func TestAcquireRelease(t *testing.T) {
	forEachVariant(t, func(t *testing.T, h *harness) {
		l := h.lock(t, variants.Config{})
		for round := range 2 { // the lock can be taken again after release
			lease := h.acquire(t, l, "res")
			if h.info.Kind != variants.KindControl && len(h.keys(t)) == 0 {
				t.Errorf("round %d: while the lock is held no key is under %s", round, h.prefix)
			}
			if got := lease.Lost() != nil; got != h.info.Claims.Renewal {
				t.Errorf("Lost() != nil is %v; want %v (the Renewal claim)", got, h.info.Claims.Renewal)
			}
			if tok := lease.Token(); tok != 0 && !h.info.Claims.Fencing {
				t.Errorf("Token() = %d for a variant without fencing; want 0", tok)
			}
			if err := lease.Release(h.ctx); err != nil {
				t.Fatalf("round %d: Release: %v", round, err)
			}
			if keys := withoutCounter(h.keys(t)); len(keys) != 0 {
				t.Errorf("round %d: after release, keys left under %s: %v", round, h.prefix, keys)
			}
		}
	})
}

func TestBusyAndTimeout(t *testing.T) {
	forEachVariant(t, func(t *testing.T, h *harness) {
		if h.info.Kind != variants.KindLock {
			t.Skipf("%s is a %s, not a lock", h.variant, h.info.Kind)
		}
		lease := h.acquire(t, h.lock(t, variants.Config{}), "res")

		_, err := h.lock(t, variants.Config{Retry: retryNone}).Acquire(h.ctx, "res")
		if !errors.Is(err, variants.ErrBusy) {
			t.Errorf("Acquire of a held lock with retry none: %v; want ErrBusy", err)
		}

		const acquireTimeout = 50 * time.Millisecond
		start := time.Now()
		_, err = h.lock(t, variants.Config{Retry: retryFixed, AcquireTimeout: acquireTimeout}).Acquire(h.ctx, "res")
		took := time.Since(start)
		if !errors.Is(err, variants.ErrTimeout) {
			t.Errorf("Acquire of a held lock with retry %v: %v; want ErrTimeout", retryFixed, err)
		}
		if took < acquireTimeout || took > acquireTimeout+time.Second {
			t.Errorf("Acquire gave up after %v; want about %v", took, acquireTimeout)
		}

		// Another lock name is another lock.
		other := h.acquire(t, h.lock(t, variants.Config{Retry: retryNone}), "other")
		if err := other.Release(h.ctx); err != nil {
			t.Errorf("Release(other): %v", err)
		}
		if err := lease.Release(h.ctx); err != nil {
			t.Errorf("Release: %v", err)
		}
	})
}

func TestAcquireCancelled(t *testing.T) {
	forEachVariant(t, func(t *testing.T, h *harness) {
		ctx, cancel := context.WithCancel(h.ctx)
		cancel()
		lease, err := h.lock(t, variants.Config{}).Acquire(ctx, "res")
		if !errors.Is(err, context.Canceled) || lease != nil {
			t.Errorf("Acquire with a cancelled context = %v, %v; want nil, context.Canceled", lease, err)
		}
		if keys := h.keys(t); len(keys) != 0 {
			t.Errorf("a cancelled acquire left keys under %s: %v", h.prefix, keys)
		}
	})
}

// sameOutcomes reports whether got matches want error by error (errors.Is).
func sameOutcomes(got, want []error) bool {
	return slices.EqualFunc(got, want, func(g, w error) bool { return errors.Is(g, w) && (g == nil) == (w == nil) })
}

func TestOnAttempt(t *testing.T) {
	forEachVariant(t, func(t *testing.T, h *harness) {
		var outcomes []error
		l := h.lock(t, variants.Config{Retry: retryNone, OnAttempt: func(err error) { outcomes = append(outcomes, err) }})

		lease := h.acquire(t, l, "res")
		if want := []error{nil}; !sameOutcomes(outcomes, want) {
			t.Errorf("an uncontended acquire reported %v; want %v", outcomes, want)
		}
		if h.info.Kind != variants.KindLock {
			return
		}

		outcomes = nil
		if _, err := l.Acquire(h.ctx, "res"); !errors.Is(err, variants.ErrBusy) {
			t.Fatalf("Acquire of a held lock: %v; want ErrBusy", err)
		}
		if want := []error{variants.ErrBusy}; !sameOutcomes(outcomes, want) {
			t.Errorf("one busy try reported %v; want %v", outcomes, want)
		}

		// A blocking acquire whose holder lets go after its third busy try
		// takes the lock at the fourth.
		outcomes = nil
		var releaseErr error
		waiter := h.lock(t, variants.Config{Retry: retryFixed, OnAttempt: func(err error) {
			outcomes = append(outcomes, err)
			if len(outcomes) == 3 {
				releaseErr = lease.Release(h.ctx)
			}
		}})
		got := h.acquire(t, waiter, "res")
		if releaseErr != nil {
			t.Errorf("the holder's Release: %v", releaseErr)
		}
		if want := []error{variants.ErrBusy, variants.ErrBusy, variants.ErrBusy, nil}; !sameOutcomes(outcomes, want) {
			t.Errorf("a blocking acquire reported %v; want %v", outcomes, want)
		}
		if err := got.Release(h.ctx); err != nil {
			t.Errorf("Release: %v", err)
		}
	})
}

// TestSetnxExpireSetsMissingExpiry: a holder that crashed between SETNX and
// PEXPIRE left the lock without expiry; the next waiter sets it.
func TestSetnxExpireSetsMissingExpiry(t *testing.T) {
	forVariant(t, "setnx-expire", func(t *testing.T, h *harness) {
		const ttl = 5 * time.Second
		key := h.prefix + "res"
		h.do(t, "SET", key, "crashed-holder")
		t.Cleanup(func() { _, _ = h.conn.Do(context.Background(), variants.Cmd("DEL", key)) })

		_, err := h.lock(t, variants.Config{Retry: retryNone, TTL: ttl}).Acquire(h.ctx, "res")
		if !errors.Is(err, variants.ErrBusy) {
			t.Fatalf("Acquire: %v; want ErrBusy", err)
		}
		pttl, _ := h.do(t, "PTTL", key).(int64)
		if pttl <= 0 || pttl > ttl.Milliseconds() {
			t.Errorf("after the waiter's try, PTTL = %d; want in (0, %d]", pttl, ttl.Milliseconds())
		}
		if got := h.do(t, "GET", key); got != "crashed-holder" {
			t.Errorf("the waiter changed the lock's value to %#v", got)
		}
	})
}

// TestReleaseAfterOverwrite: the lease's key now holds another client's
// value (the lease expired and someone else took the lock).
func TestReleaseAfterOverwrite(t *testing.T) {
	tests := []struct {
		variant   string
		wantErr   error // from Release
		wantKept  bool  // the other client's value survives the release
		rationale string
	}{
		{"simple", variants.ErrLeaseLost, true, "WATCH, GET and compare"},
		{"setnx-expire", variants.ErrLeaseLost, true, "released as simple"},
		{"set-nx-ex", nil, false, "plain DEL, no owner check: the design's flaw"},
		{"get-del", variants.ErrLeaseLost, true, "GET and compare, then DEL"},
		{"lua-release", variants.ErrLeaseLost, true, "Lua compare-and-delete"},
		{"watchdog", variants.ErrLeaseLost, true, "Lua compare-and-delete"},
		{"redsync", variants.ErrLeaseLost, true, "redsync's Lua compare-and-delete"},
		{"redislock", variants.ErrLeaseLost, true, "redislock's Lua compare-and-delete"},
	}
	for _, tc := range tests {
		t.Run(tc.variant, func(t *testing.T) {
			forVariant(t, tc.variant, func(t *testing.T, h *harness) {
				key := h.prefix + "res"
				lease := h.acquire(t, h.lock(t, variants.Config{}), "res")
				h.do(t, "SET", key, "someone-else")
				t.Cleanup(func() { _, _ = h.conn.Do(context.Background(), variants.Cmd("DEL", key)) })

				err := lease.Release(h.ctx)
				if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
					t.Errorf("Release (%s) = %v; want %v", tc.rationale, err, tc.wantErr)
				}
				got := h.do(t, "GET", key)
				if kept := got == "someone-else"; kept != tc.wantKept {
					t.Errorf("after Release (%s) the key holds %#v; want the other value kept: %v", tc.rationale, got, tc.wantKept)
				}
			})
		})
	}
}

// TestReleaseAfterScriptFlush: a server that lost its scripts answers
// EVALSHA with NOSCRIPT; the release falls back to EVAL.
func TestReleaseAfterScriptFlush(t *testing.T) {
	for _, v := range []string{"lua-release", "watchdog"} {
		t.Run(v, func(t *testing.T) {
			forVariant(t, v, func(t *testing.T, h *harness) {
				counted := variants.NewCounted(h.conn)
				lease := h.acquire(t, h.lock(t, variants.Config{Conn: counted}), "res")
				if _, err := h.conn.Do(h.ctx, variants.Bare("SCRIPT", "FLUSH")); err != nil {
					t.Fatal(err)
				}
				before := counted.Commands()
				if err := lease.Release(h.ctx); err != nil {
					t.Fatalf("Release after SCRIPT FLUSH: %v", err)
				}
				if n := counted.Commands() - before; n != 2 {
					t.Errorf("Release sent %d commands; want 2 (EVALSHA, then EVAL)", n)
				}
				if keys := h.keys(t); len(keys) != 0 {
					t.Errorf("after release, keys left: %v", keys)
				}
			})
		})
	}
}

func TestWatchdog(t *testing.T) {
	// Renewals come every TTL/3: a lease is lost only when one is more
	// than 2/3 of a TTL late, which a loaded machine did to a 90 ms TTL
	// (a 60 ms stall) under the quick tier; 600 ms needs a 400 ms stall.
	const ttl = 600 * time.Millisecond

	t.Run("renews while held", func(t *testing.T) {
		forVariant(t, "watchdog", func(t *testing.T, h *harness) {
			lease := h.acquire(t, h.lock(t, variants.Config{TTL: ttl}), "res")
			select {
			case <-lease.Lost():
				t.Fatal("Lost() closed while the lease was held and renewed")
			case <-time.After(4*ttl + 100*time.Millisecond): // more than 4 TTLs
			}
			if pttl, _ := h.do(t, "PTTL", h.prefix+"res").(int64); pttl <= 0 {
				t.Errorf("after %v held, PTTL = %d; want > 0 (renewed)", 4*ttl+100*time.Millisecond, pttl)
			}
			if err := lease.Release(h.ctx); err != nil {
				t.Errorf("Release: %v", err)
			}
		})
	})

	t.Run("reports a lost lease", func(t *testing.T) {
		forVariant(t, "watchdog", func(t *testing.T, h *harness) {
			lease := h.acquire(t, h.lock(t, variants.Config{TTL: ttl}), "res")
			h.do(t, "DEL", h.prefix+"res")
			deleted := time.Now()
			select {
			case <-lease.Lost():
				t.Logf("Lost() closed %v after the DEL", time.Since(deleted))
			case <-time.After(10 * ttl): // the next renewal finds it gone; a loaded machine may delay it
				t.Fatalf("Lost() not closed %v after the lock's key was deleted", 10*ttl)
			}
			if err := lease.Release(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
				t.Errorf("Release of a lost lease = %v; want ErrLeaseLost", err)
			}
		})
	})
}

// withoutCounter drops the counters that persist by design: the fair
// semaphores' (deleting it while a client is between INCR and ZADD would
// let new clients outrank that client) and fenced's fence counter
// (deleting it would hand out old tokens again). The runner removes them
// with the run's keys.
func withoutCounter(keys []any) []any {
	var out []any
	for _, k := range keys {
		if s, _ := k.(string); !strings.HasSuffix(s, "}:counter") && !strings.HasSuffix(s, "}:fence") {
			out = append(out, k)
		}
	}
	return out
}
