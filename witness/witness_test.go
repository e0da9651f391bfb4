package witness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// dial connects to ep as one more process would.
func dial(t *testing.T, ep topologies.Endpoint) *Witness {
	t.Helper()
	w, err := Dial(context.Background(), ep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

var prefixes int

// newPrefix is a cell prefix of its own.
func newPrefix(t *testing.T) string {
	prefixes++
	return fmt.Sprintf("lockbench:%s-%d:c0:", t.Name(), prefixes)
}

// Two processes' holders inside one resource at once are one overlap in
// the witness, and the second write loses the first's update; neither
// process alone saw anything wrong.
func TestOverlapAcrossConnections(t *testing.T) {
	ep := topotest.Endpoint(t)
	prefix := newPrefix(t)
	a := dial(t, ep).Oracle(prefix, 1, 1, false)
	b := dial(t, ep).Oracle(prefix, 1, 1, false)
	ea := a.EnterFenced(0, 0)
	eb := b.EnterFenced(0, 0)
	time.Sleep(20 * time.Millisecond)
	if !a.Exit(ea) {
		t.Fatal("the resource refused an unfenced write")
	}
	if !a.Intruded(ea) {
		t.Error("a later holder is inside after the first left: Intruded must say so")
	}
	b.Exit(eb)
	rep := a.Report()
	if rep.Overlaps != 1 || rep.MaxOccupancy != 2 || rep.CriticalSections != 2 || rep.Counter != 1 || rep.LostUpdates != 1 || rep.Holders != 0 {
		t.Errorf("report %+v; want 1 overlap, occupancy 2, 2 critical sections, counter 1, 1 lost update", rep)
	}
	if rep.TimeOverLimit < 20*time.Millisecond || rep.TimeOverLimit > 2*time.Second {
		t.Errorf("time over limit %v; the two were inside together for at least 20ms", rep.TimeOverLimit)
	}
	if n, err := a.Failures(); n != 0 {
		t.Errorf("%d failed calls: %v", n, err)
	}
}

// The witness counts what oracle.Memory counts: the same random sequence
// of waits, entries, exits and abandons, with fencing tokens, gives the
// same report (times apart), for a lock and for a semaphore, counting and
// refusing stale writes.
func TestSameAsInMemoryOracle(t *testing.T) {
	ep := topotest.Endpoint(t)
	w := dial(t, ep)
	for _, tc := range []struct {
		limit  int
		reject bool
	}{{1, false}, {1, true}, {2, false}} {
		t.Run(fmt.Sprintf("limit=%d,reject=%v", tc.limit, tc.reject), func(t *testing.T) {
			const resources = 3
			mem := oracle.New(resources, tc.limit)
			if tc.reject {
				mem.RejectStaleWrites()
			}
			wit := w.Oracle(newPrefix(t), resources, tc.limit, tc.reject)
			type pair struct{ mem, wit oracle.Entry }
			var inside []pair
			rnd := rand.New(rand.NewPCG(1, uint64(tc.limit)))
			token := uint64(0)
			for range 400 {
				switch op := rnd.IntN(10); {
				case op < 4:
					r := rnd.IntN(resources)
					mem.Waiting(r)
					wit.Waiting(r)
					if rnd.IntN(4) == 0 {
						mem.GaveUp(r)
						wit.GaveUp(r)
						continue
					}
					token++
					tok := token
					if rnd.IntN(3) == 0 {
						tok = token / 2 // a stale holder
					}
					inside = append(inside, pair{mem.EnterFenced(r, tok), wit.EnterFenced(r, tok)})
				case len(inside) > 0:
					i := rnd.IntN(len(inside))
					p := inside[i]
					inside = slices.Delete(inside, i, i+1)
					if op == 9 {
						mem.Abandon(p.mem)
						wit.Abandon(p.wit)
					} else if mt, wt := mem.Exit(p.mem), wit.Exit(p.wit); mt != wt {
						t.Fatalf("Exit took the write: in memory %v, witness %v", mt, wt)
					}
					if mi, wi := mem.Intruded(p.mem), wit.Intruded(p.wit); mi != wi {
						t.Fatalf("Intruded: in memory %v, witness %v", mi, wi)
					}
				}
			}
			got, want := wit.Report(), mem.Report()
			got.TimeOverLimit, want.TimeOverLimit = 0, 0
			got.LongestUnavailable, want.LongestUnavailable = 0, 0
			if got != want {
				t.Errorf("witness %+v\nin memory %+v", got, want)
			}
			if want.Overlaps == 0 || (tc.limit == 1 && want.StaleWrites+want.RejectedWrites == 0) {
				t.Errorf("the sequence checks too little: %+v", want)
			}
		})
	}
}

// A resource free while a client waits is unavailable until the next
// holder enters; a release while someone waits times the handoff.
func TestUnavailableAndHandoff(t *testing.T) {
	ep := topotest.Endpoint(t)
	o := dial(t, ep).Oracle(newPrefix(t), 1, 1, false)
	o.Waiting(0)
	e := o.EnterFenced(0, 0)
	o.Waiting(0) // a second client waits while the first holds
	o.Exit(e)
	time.Sleep(30 * time.Millisecond)
	e = o.EnterFenced(0, 0)
	o.Exit(e)
	rep := o.Report()
	if rep.LongestUnavailable < 30*time.Millisecond || rep.LongestUnavailable > 2*time.Second {
		t.Errorf("longest unavailable %v, want about 30ms", rep.LongestUnavailable)
	}
	if h := o.Handoff(); h.TotalCount() != 1 || h.Max() < 30_000 {
		t.Errorf("handoff: %d values, max %d µs; want one of at least 30ms", h.TotalCount(), h.Max())
	}
}

// Shards meet: each waits until all have arrived; one that never comes is
// named once the wait runs out; a shard with another plan, or arriving
// twice, is refused.
func TestMeet(t *testing.T) {
	ep := topotest.Endpoint(t)
	ctx := context.Background()
	run := "lockbench:meet-test:"
	var wg sync.WaitGroup
	var arrivals [3]time.Time
	for i := range 3 {
		w := dial(t, ep)
		wg.Go(func() {
			time.Sleep(time.Duration(i) * 100 * time.Millisecond)
			m, err := w.Meet(ctx, run, run+"c0:", i+1, 3, "plan-a", 5*time.Second)
			arrivals[i] = time.Now()
			if err != nil || m.Missing != nil {
				t.Errorf("shard %d: %+v, %v", i+1, m, err)
			}
		})
	}
	wg.Wait()
	first, last := slices.MinFunc(arrivals[:], time.Time.Compare), slices.MaxFunc(arrivals[:], time.Time.Compare)
	if spread := last.Sub(first); spread > 100*time.Millisecond {
		t.Errorf("the shards left the meeting %v apart; the first must wait for the last (200ms later)", spread)
	}

	w := dial(t, ep)
	m, err := w.Meet(ctx, run, run+"c1:", 1, 3, "plan-a", 200*time.Millisecond)
	if err != nil || !slices.Equal(m.Missing, []int{2, 3}) || m.Waited < 200*time.Millisecond {
		t.Errorf("alone at a meeting of 3: %+v, %v; want shards 2 and 3 missing after 200ms", m, err)
	}
	if _, err := w.Meet(ctx, run, run+"c1:", 1, 3, "plan-a", time.Second); !errors.Is(err, ErrArrivedTwice) {
		t.Errorf("shard 1 again: %v, want ErrArrivedTwice", err)
	}
	if _, err := w.Meet(ctx, run, run+"c1:", 2, 3, "plan-b", time.Second); !errors.Is(err, ErrPlanMismatch) {
		t.Errorf("another plan: %v, want ErrPlanMismatch", err)
	}
}

// Finish counts the shards done with a cell; Keep and Records hand the
// shards' records to merge in shard order.
func TestFinishAndRecords(t *testing.T) {
	ep := topotest.Endpoint(t)
	ctx := context.Background()
	w := dial(t, ep)
	prefix := newPrefix(t)
	o := w.Oracle(prefix, 2, 1, false)
	o.Exit(o.EnterFenced(1, 0))
	for i, want := range []int{1, 2, 2} {
		rep, done, err := o.Finish(ctx, []int{2, 1, 1}[i])
		if err != nil || done != want || rep.CriticalSections != 1 {
			t.Errorf("finish %d: done %d, %+v, %v; want done %d, 1 critical section", i, done, rep, err, want)
		}
	}
	run := "lockbench:records-test:"
	for _, i := range []int{3, 1, 2} {
		if err := w.Keep(ctx, run, i, []byte(fmt.Sprintf(`{"shard":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := w.Records(ctx, run)
	if err != nil || len(recs) != 3 || string(recs[0]) != `{"shard":1}` || string(recs[2]) != `{"shard":3}` {
		t.Errorf("records %q, %v", recs, err)
	}
}

// A witness that is the server under test is refused, by address or by
// the server's run_id; another server is accepted. An unreachable witness
// is clients.ErrUnreachable.
func TestCheckApartAndUnreachable(t *testing.T) {
	ctx := context.Background()
	ep := topotest.Endpoint(t)
	other := topotest.Endpoint(t)
	w := dial(t, ep)
	conn := func(e topologies.Endpoint) clients.Client {
		c, err := clients.New(ctx, e, clients.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	if err := w.CheckApart(ctx, []string{ep.Addr}, nil); !errors.Is(err, ErrSameServer) {
		t.Errorf("same address: %v", err)
	}
	if err := w.CheckApart(ctx, []string{"127.0.0.1:1"}, []clients.Client{conn(ep)}); !errors.Is(err, ErrSameServer) {
		t.Errorf("same server by run_id: %v", err)
	}
	if err := w.CheckApart(ctx, []string{other.Addr}, []clients.Client{conn(other)}); err != nil {
		t.Errorf("another server: %v", err)
	}
	dead := topologies.Endpoint{Addr: "127.0.0.1:1"}
	if _, err := Dial(ctx, dead); !errors.Is(err, clients.ErrUnreachable) {
		t.Errorf("unreachable witness: %v", err)
	}
}
