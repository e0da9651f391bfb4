package variants_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// redlockNodes starts local:redlock?nodes=5 and returns it with a
// connection of lib to every node.
func redlockNodes(t *testing.T, lib string) (*topologies.Local, []variants.Conn) {
	t.Helper()
	topo := topotest.Start(t, "local:redlock?nodes=5")
	var conns []variants.Conn
	for _, ep := range topo.Access().Endpoints {
		c, err := clients.New(t.Context(), ep, clients.Options{Library: lib})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		conns = append(conns, c)
	}
	return topo, conns
}

// waitHolders waits up to a second for the key to be on want nodes.
func waitHolders(t *testing.T, conns []variants.Conn, key string, want int) {
	t.Helper()
	if !reached(t, conns, key, want) {
		t.Fatalf("the lock is on %d nodes; want %d", holders(t, conns, key), want)
	}
}

// reached reports whether the key came to be on want nodes within a second.
func reached(t *testing.T, conns []variants.Conn, key string, want int) bool {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for holders(t, conns, key) != want {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// holders counts the nodes whose key holds a value.
func holders(t *testing.T, conns []variants.Conn, key string) int {
	t.Helper()
	n := 0
	for _, c := range conns {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		v, err := c.Do(ctx, variants.Cmd("GET", key))
		cancel()
		if err == nil && v != nil {
			n++
		}
	}
	return n
}

func redlockFor(t *testing.T, conns []variants.Conn, cfg variants.Config) variants.Lock {
	t.Helper()
	cfg.Conn, cfg.Conns, cfg.Prefix = conns[0], conns, "lbtest:"
	l, err := variants.New("redlock", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Redlock writes the lock to every node, tolerates a minority of dead
// nodes, and fails without a majority.
func TestRedlockMajority(t *testing.T) {
	topotest.Faulted(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			topo, conns := redlockNodes(t, lib)
			ctx := t.Context()
			key := "lbtest:res"

			l := redlockFor(t, conns, variants.Config{TTL: 10 * time.Second, Retry: retryNone})
			var (
				lease variants.Lease
				err   error
			)
			for try := 1; ; try++ {
				if lease, err = l.Acquire(ctx, "res"); err != nil {
					t.Fatal(err)
				}
				if reached(t, conns, key, 5) { // acquire returns once a majority acknowledged
					break
				}
				// On a loaded machine a node's SET can miss the 50 ms
				// per-node timeout and never be sent: try again.
				if try == 5 {
					t.Fatalf("the lock is on %d nodes after %d tries; want 5", holders(t, conns, key), try)
				}
				if err := lease.Release(ctx); err != nil {
					t.Fatal(err)
				}
				waitHolders(t, conns, key, 0)
			}
			valid := lease.(interface{ ValidUntil() time.Time }).ValidUntil()
			if left := time.Until(valid); left <= 9*time.Second || left > 10*time.Second {
				t.Errorf("validity %v after acquiring with a 10s TTL", left)
			}
			if _, err := redlockFor(t, conns, variants.Config{Retry: retryNone}).Acquire(ctx, "res"); !errors.Is(err, variants.ErrBusy) {
				t.Errorf("second acquire while held: %v; want ErrBusy", err)
			}
			if err := lease.(variants.Refresher).Refresh(ctx); err != nil {
				t.Errorf("Refresh: %v", err)
			}
			if err := lease.Release(ctx); err != nil {
				t.Fatal(err)
			}
			// Release returns once a majority deleted; the rest follow.
			waitHolders(t, conns, key, 0)

			// Two of five paused: a majority remains.
			for _, n := range []string{"node-1", "node-2"} {
				if err := topo.Pause(n); err != nil {
					t.Fatal(err)
				}
			}
			began := time.Now()
			lease, err = l.Acquire(ctx, "res")
			if err != nil {
				t.Fatalf("acquire with 2 of 5 nodes paused: %v", err)
			}
			if took := time.Since(began); took > time.Second {
				t.Errorf("acquire with 2 paused nodes took %v; the per-node timeout should bound it", took)
			}
			if got := holders(t, conns[2:], key); got != 3 {
				t.Errorf("lock on %d of the 3 live nodes", got)
			}
			if err := lease.Release(ctx); err != nil {
				t.Errorf("release with 2 of 5 paused: %v", err)
			}

			// Three of five paused: no majority, so no lock, and nothing left.
			if err := topo.Pause("node-3"); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Acquire(ctx, "res"); !errors.Is(err, variants.ErrBusy) {
				t.Errorf("acquire with 3 of 5 paused, retry none: %v; want ErrBusy", err)
			}
			waiting := redlockFor(t, conns, variants.Config{AcquireTimeout: 200 * time.Millisecond})
			if _, err := waiting.Acquire(ctx, "res"); !errors.Is(err, variants.ErrTimeout) {
				t.Errorf("blocking acquire with 3 of 5 paused: %v; want ErrTimeout", err)
			}
			if got := holders(t, conns[3:], key); got != 0 {
				t.Errorf("a failed acquire left the lock on %d live nodes; it must release everywhere", got)
			}
			for _, n := range []string{"node-1", "node-2", "node-3"} {
				if err := topo.Resume(n); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// On one Redis, Redlock is a single-node lock with a validity check.
func TestRedlockOnOneNode(t *testing.T) {
	forVariant(t, "redlock", func(t *testing.T, h *harness) {
		l := h.lock(t, variants.Config{Retry: retryNone})
		lease := h.acquire(t, l, "res")
		if _, err := h.lock(t, variants.Config{Retry: retryNone}).Acquire(h.ctx, "res"); !errors.Is(err, variants.ErrBusy) {
			t.Errorf("second acquire: %v; want ErrBusy", err)
		}
		if err := lease.Release(h.ctx); err != nil {
			t.Fatal(err)
		}
	})
}
