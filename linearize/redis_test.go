package linearize_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/linearize"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// outcome is the history's outcome of a variant's error.
func outcome(err error) history.Type {
	switch {
	case err == nil:
		return history.OK
	case errors.Is(err, variants.ErrBusy), errors.Is(err, variants.ErrTimeout), errors.Is(err, variants.ErrLeaseLost):
		return history.Fail
	}
	return history.Info
}

// Kleppmann's pause on a real redis-server: lua-release with a 40 ms TTL,
// three clients, and every fifth hold of client 0 lasting 120 ms, past the
// TTL. Others take the expired lock while client 0 is still inside, so the
// critical-sections view is not linearizable, as the oracle counts, and
// the window is the paused holder and the one that came in; yet the lock
// kept its word — every release of an expired lease failed — so the
// leases view is linearizable.
func TestPauseOnRedis(t *testing.T) {
	ep := topotest.Endpoint(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	conn, err := clients.New(ctx, ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const clientsN, cycles, ttl = 3, 25, 40 * time.Millisecond
	name := "lbtest:" + t.Name() + ":k0"
	oracle := oracle.New(1, 1)
	rec := history.NewRecorder(history.RecorderOptions{Keys: []string{name}, Capacity: clientsN * cycles * 8})
	var wg sync.WaitGroup
	errs := make(chan error, clientsN)
	for c := range clientsN {
		lock, err := variants.New("lua-release", variants.Config{Conn: conn, Prefix: "lbtest:" + t.Name() + ":",
			TTL: ttl, AcquireTimeout: 5 * time.Second,
			Retry: variants.RetryPolicy{Kind: variants.RetryFixed, Min: time.Millisecond, Max: time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for i := range cycles {
				acq := rec.Invoke(c, 0, history.Acquire, history.NoID)
				lease, err := lock.Acquire(ctx, name)
				if err != nil {
					rec.Complete(acq, outcome(err), 0)
					errs <- err
					return
				}
				rec.Complete(acq, history.OK, lease.Token())
				in := rec.Invoke(c, 0, history.Enter, acq)
				entry := oracle.Enter(0)
				rec.Complete(in, history.OK, 0)
				hold := 2 * time.Millisecond
				if c == 0 && i%5 == 4 {
					hold = 3 * ttl
				}
				time.Sleep(hold)
				out := rec.Invoke(c, 0, history.Exit, acq)
				oracle.Exit(entry)
				rec.Complete(out, history.OK, 0)
				rel := rec.Invoke(c, 0, history.Release, acq)
				err = lease.Release(ctx)
				rec.Complete(rel, outcome(err), 0)
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("acquire: %v", err)
	}
	h := rec.History()
	rep := oracle.Report()

	cs, err := linearize.Check(h, linearize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overlaps == 0 || cs.Verdict != linearize.NotLinearizable {
		t.Fatalf("oracle overlaps %d, critical sections %s: want both to see the paused holder's overlap", rep.Overlaps, cs.Verdict)
	}
	t.Logf("oracle: %d overlaps; critical sections: %s, %d failing segments, window %v of clients %v",
		rep.Overlaps, cs.Verdict, cs.FailingSegments, cs.Window.Leases, cs.Window.Processes)
	paused := false
	for _, l := range cs.Window.Leases {
		for _, op := range h.Operations() {
			if op.Lease == l && op.Op == history.Release && op.Outcome == history.Fail {
				paused = true
			}
		}
	}
	if len(cs.Window.Leases) != 2 || !paused {
		t.Errorf("window %+v: want two leases, one the paused holder's (its release failed)", cs.Window)
	}

	leases, err := linearize.Check(h, linearize.Options{View: history.Leases})
	if err != nil {
		t.Fatal(err)
	}
	if leases.Verdict != linearize.Linearizable {
		t.Errorf("leases view %s, window %+v: lua-release never vouched for two leases at once", leases.Verdict, leases.Window)
	}
}
