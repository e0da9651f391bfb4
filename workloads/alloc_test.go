package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// The closed loop's turn with the none variant (acquire, enter, hold,
// exit, release, think: everything but Redis) allocates nothing: the
// harness takes no CPU per acquisition from the Redis it measures beyond
// its own bookkeeping. The cases cover one key, a key per client with the
// live counters fed, random keys with hold and think times (timers), and
// one key with its history recorded and its margins measured.
func TestClosedLoopTurnDoesNotAllocate(t *testing.T) {
	conn, err := clients.New(t.Context(), topotest.Endpoint(t), clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	hold, err := ParseDistribution("uniform:1us-3us")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec Spec
		runs int // each sleeps twice in the last case (about 1 ms each)
	}{
		{"one key", Spec{Clients: 2, Keys: 1}, 2000},
		{"key per client, live", Spec{Clients: 2, KeyPerClient: true, Live: &Live{}}, 2000},
		{"keys, hold and think", Spec{Clients: 2, Keys: 8, Hold: hold, Think: hold}, 200},
		{"one key, history and margins", Spec{Clients: 2, Keys: 1, HistoryEvents: 1 << 16, LeaseTTL: 10 * time.Second}, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Ops = 1 << 40 // never runs out here
			newLock := func(env ClientEnv) (variants.Lock, error) {
				return variants.New("none", variants.Config{
					Conn: variants.NewCounted(conn), Prefix: "lbtest:alloc:", Clock: env.Clock,
					OnAttempt: env.OnAttempt, AtStep: env.AtStep, Note: env.Note,
				})
			}
			oracle := oracle.New(max(spec.Keys, spec.Clients), 1)
			d, err := newDriver(context.Background(), spec, newLock, oracle)
			if err != nil {
				t.Fatal(err)
			}
			defer d.closeLocks()
			d.begin()
			d.measuring.Store(true)
			c := d.clients[0]
			defer c.closeRelease()
			ctx := context.Background()
			var began time.Time
			runs := tc.runs
			allocs := testing.AllocsPerRun(runs, func() {
				next, more := c.step(ctx, began)
				if !more {
					t.Fatal("the ops ran out")
				}
				began = next
			})
			if allocs != 0 {
				t.Errorf("%v allocations per turn, want 0", allocs)
			}
			c.tally.Flush() // as the closed loop does when the client stops
			// Every turn went through the whole cycle.
			rep := oracle.Report()
			if rep.CriticalSections != int64(runs+1) || rep.Holders != 0 {
				t.Errorf("oracle saw %d critical sections and %d holders, want %d and 0", rep.CriticalSections, rep.Holders, runs+1)
			}
			if got := metrics.Merge(d.measured, nil); got.Acquisitions != int64(runs+1) || got.Attempts != int64(runs+1) {
				t.Errorf("recorded %d acquisitions of %d attempts, want %d of %d", got.Acquisitions, got.Attempts, runs+1, runs+1)
			}
			if spec.HistoryEvents == 0 {
				return
			}
			// Each turn recorded its four operations, invoked and
			// completed, and its margins.
			if got, want := d.hist.Len(), 8*(runs+1); got != want || d.hist.Cut() {
				t.Errorf("history kept %d events (cut %v), want %d", got, d.hist.Cut(), want)
			}
			m, _ := metrics.MergeMargins(d.margins)
			if m.ValidityLeft.TotalCount() != int64(runs+1) || m.Holds != int64(runs+1) || m.LateHolds != 0 {
				t.Errorf("margins: %d validities, %d holds (%d late), want %d, %d (0 late)", m.ValidityLeft.TotalCount(), m.Holds, m.LateHolds, runs+1, runs+1)
			}
		})
	}
}
