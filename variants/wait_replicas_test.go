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

// With a replica, an acquisition returns once the replica has the lock
// key: WAIT counted it.
func TestWaitReplicasAcked(t *testing.T) {
	topo := topotest.Start(t, "local:replicated?replicas=1")
	var master, replica topologies.Endpoint
	for _, n := range topo.Nodes() {
		switch n.Role {
		case topologies.RoleMaster:
			master = n.Endpoint
		case topologies.RoleReplica:
			replica = n.Endpoint
		}
	}
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			conn := dial(t, master, lib)
			onReplica := dial(t, replica, lib)
			h := newHarness(t, conn, lib, "wait-replicas")
			waitReplicating(t, h, onReplica)
			var n notes
			counted := variants.NewCounted(conn)
			lease := h.acquire(t, h.lock(t, variants.Config{Conn: counted, Note: n.note}), "res")
			if n.get(variants.NoteAcked) != 1 || n.get(variants.NoteUnacked) != 0 {
				t.Errorf("notes %v; want acked=1", &n)
			}
			if sent := counted.Commands(); sent != 3 {
				t.Errorf("Acquire sent %d commands; want 3 (SET, ROLE, WAIT)", sent)
			}
			// No wait here: WAIT returned after the replica had the key.
			if got, err := onReplica.Do(h.ctx, variants.Cmd("EXISTS", h.prefix+"res")); err != nil || got != int64(1) {
				t.Errorf("EXISTS on the replica right after Acquire = %v, %v; want 1", got, err)
			}
			if err := lease.Release(h.ctx); err != nil {
				t.Errorf("Release: %v", err)
			}
		})
	}
}

// Without replicas (ROLE lists none) no WAIT is sent: every acquisition
// is unacked at once and still a lock; with WaitStrict nothing is
// acquired, and no key is left behind.
func TestWaitReplicasWithoutReplicas(t *testing.T) {
	forVariant(t, "wait-replicas", func(t *testing.T, h *harness) {
		var n notes
		counted := variants.NewCounted(h.conn)
		l := h.lock(t, variants.Config{Conn: counted, Note: n.note})
		for round, want := range []int64{2, 1} { // SET and ROLE, then SET (ROLE's answer kept)
			before := counted.Commands()
			lease := h.acquire(t, l, "res")
			if sent := counted.Commands() - before; sent != want {
				t.Errorf("acquire %d sent %d commands; want %d (no WAIT without replicas)", round, sent, want)
			}
			if _, err := h.lock(t, variants.Config{Retry: retryNone}).Acquire(h.ctx, "res"); !errors.Is(err, variants.ErrBusy) {
				t.Errorf("an unacked lock did not exclude: second Acquire = %v; want ErrBusy", err)
			}
			if err := lease.Release(h.ctx); err != nil {
				t.Fatalf("Release: %v", err)
			}
		}
		if n.get(variants.NoteUnacked) != 2 || n.get(variants.NoteAcked) != 0 {
			t.Errorf("notes %v; want unacked=2", &n)
		}

		n = notes{}
		strict := h.lock(t, variants.Config{WaitStrict: true, Retry: retryFixed, AcquireTimeout: 100 * time.Millisecond, Note: n.note})
		if _, err := strict.Acquire(h.ctx, "res"); !errors.Is(err, variants.ErrTimeout) {
			t.Errorf("strict Acquire without replicas = %v; want ErrTimeout", err)
		}
		if n.get(variants.NoteUnackedReleased) == 0 || n.get(variants.NoteAcked)+n.get(variants.NoteUnacked) != 0 {
			t.Errorf("strict notes %v; want only unacked-released", &n)
		}
		if keys := h.keys(t); len(keys) != 0 {
			t.Errorf("keys left under %s: %v", h.prefix, keys)
		}
	})
}

// dial connects a client of lib to ep for the test.
func dial(t *testing.T, ep topologies.Endpoint, lib string) clients.Client {
	t.Helper()
	c, err := clients.New(context.Background(), ep, clients.Options{Library: lib})
	if err != nil {
		t.Fatalf("clients.New(%s): %v", lib, err)
	}
	t.Cleanup(c.Close)
	return c
}

// waitReplicating waits until a write on the harness's master reaches the
// replica. A replica fresh from its (diskless) initial sync reports its
// link up but may get no writes until its first periodic ACK, up to a
// second later; WAIT answers 0 until then.
func waitReplicating(t *testing.T, h *harness, replica variants.Conn) {
	t.Helper()
	probe := h.prefix + "probe"
	h.do(t, "SET", probe, "1")
	defer h.do(t, "DEL", probe)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n, err := replica.Do(h.ctx, variants.Cmd("EXISTS", probe)); err == nil && n == int64(1) {
			return
		}
	}
	t.Fatal("a write on the master did not reach the replica within 5s")
}
