package variants_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// fencedKey is the key of fenced's lock called name; suffix ":fence" its
// counter.
func (h *harness) fencedKey(name, suffix string) string { return h.prefix + "{" + name + "}" + suffix }

// Tokens strictly increase over acquisitions of one lock name, whichever
// client takes it, and survive releases; another name counts apart.
func TestFencedTokensIncrease(t *testing.T) {
	forVariant(t, "fenced", func(t *testing.T, h *harness) {
		if !h.info.Claims.Fencing {
			t.Fatal("fenced does not claim fencing")
		}
		clients := []variants.Lock{h.lock(t, variants.Config{}), h.lock(t, variants.Config{})}
		var last uint64
		for i := range 6 {
			lease := h.acquire(t, clients[i%2], "res")
			tok := lease.Token()
			if tok <= last {
				t.Errorf("acquisition %d: token %d after %d; want strictly increasing", i, tok, last)
			}
			last = tok
			if err := lease.Release(h.ctx); err != nil {
				t.Fatalf("Release: %v", err)
			}
		}
		if got := h.do(t, "GET", h.fencedKey("res", ":fence")); got != "6" {
			t.Errorf("fence counter after 6 acquisitions = %#v; want \"6\" (kept across releases)", got)
		}
		if pttl, _ := h.do(t, "PTTL", h.fencedKey("res", ":fence")).(int64); pttl != -1 {
			t.Errorf("fence counter PTTL = %d; want -1 (no expiry)", pttl)
		}
		other := h.acquire(t, clients[0], "other")
		if other.Token() != 1 {
			t.Errorf("first token of another lock name = %d; want 1", other.Token())
		}
	})
}

// A busy acquire hands out no token: the counter moves only when the lock
// is taken.
func TestFencedBusyTakesNoToken(t *testing.T) {
	forVariant(t, "fenced", func(t *testing.T, h *harness) {
		lease := h.acquire(t, h.lock(t, variants.Config{}), "res")
		for range 3 {
			if _, err := h.lock(t, variants.Config{Retry: retryNone}).Acquire(h.ctx, "res"); !errors.Is(err, variants.ErrBusy) {
				t.Fatalf("Acquire of a held lock: %v; want ErrBusy", err)
			}
		}
		if got := h.do(t, "GET", h.fencedKey("res", ":fence")); got != "1" {
			t.Errorf("fence counter after 1 acquisition and 3 busy tries = %#v; want \"1\"", got)
		}
		if err := lease.Release(h.ctx); err != nil {
			t.Errorf("Release: %v", err)
		}
	})
}

// A holder whose lease expired and passed on holds an older token than the
// new holder, and its release leaves the new holder's lock alone.
func TestFencedExpiredHolder(t *testing.T) {
	forVariant(t, "fenced", func(t *testing.T, h *harness) {
		const ttl = 50 * time.Millisecond
		stale := h.acquire(t, h.lock(t, variants.Config{TTL: ttl}), "res")
		time.Sleep(2 * ttl)
		fresh := h.acquire(t, h.lock(t, variants.Config{TTL: 10 * time.Second}), "res")
		if stale.Token() >= fresh.Token() {
			t.Errorf("expired holder's token %d, new holder's %d; want older < newer", stale.Token(), fresh.Token())
		}
		if err := stale.Release(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
			t.Errorf("Release of the expired lease = %v; want ErrLeaseLost", err)
		}
		if n, _ := h.do(t, "EXISTS", h.fencedKey("res", "")).(int64); n != 1 {
			t.Error("the expired holder's release deleted the new holder's lock")
		}
		if err := fresh.Release(h.ctx); err != nil {
			t.Errorf("Release: %v", err)
		}
	})
}

// A server that lost its scripts answers EVALSHA with NOSCRIPT; the
// acquire falls back to EVAL.
func TestFencedAcquireAfterScriptFlush(t *testing.T) {
	forVariant(t, "fenced", func(t *testing.T, h *harness) {
		counted := variants.NewCounted(h.conn)
		l := h.lock(t, variants.Config{Conn: counted})
		if _, err := h.conn.Do(h.ctx, variants.Bare("SCRIPT", "FLUSH")); err != nil {
			t.Fatal(err)
		}
		lease, err := l.Acquire(h.ctx, "res")
		if err != nil {
			t.Fatalf("Acquire after SCRIPT FLUSH: %v", err)
		}
		defer func() { _ = lease.Release(context.Background()) }()
		if n := counted.Commands(); n != 2 || lease.Token() != 1 {
			t.Errorf("Acquire sent %d commands, token %d; want 2 (EVALSHA, then EVAL) and token 1", n, lease.Token())
		}
	})
}
