package workloads_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/linearize"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// A cell's history, closed or open loop, is well formed and tells the
// oracle's story: one ok enter per critical section the oracle saw, every
// one after an ok acquire of its lease, the clients numbered from
// FirstClient; porcupine finds the lock's critical sections linearizable
// and the none control's not, as the oracle counts no overlap or some.
func TestHistoryOfACell(t *testing.T) {
	conn, err := clients.New(t.Context(), topotest.Endpoint(t), clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	for _, tc := range []struct {
		name, variant string
		spec          workloads.Spec
	}{
		{"closed loop", "lua-release", workloads.Spec{Clients: 4, Keys: 2, Hold: mustDist(t, "1ms"), Duration: 300 * time.Millisecond}},
		{"open loop", "lua-release", workloads.Spec{Clients: 4, Keys: 1, Hold: mustDist(t, "1ms"), Rate: 300, Duration: 300 * time.Millisecond}},
		{"none", "none", workloads.Spec{Clients: 4, Keys: 1, Hold: mustDist(t, "1ms"), Duration: 300 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.FirstClient, spec.HistoryEvents, spec.Warmup = 3, 1<<20, 50*time.Millisecond
			oracle := oracle.New(max(spec.Keys, 1), 1)
			newLock := func(env workloads.ClientEnv) (variants.Lock, error) {
				return variants.New(tc.variant, variants.Config{Conn: conn, Prefix: "lbtest:history:" + tc.name + ":", OnAttempt: env.OnAttempt, AtStep: env.AtStep})
			}
			out, err := workloads.Run(context.Background(), spec, newLock, oracle, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := out.History
			if h == nil || h.Meta.Cut {
				t.Fatalf("history %v: want a whole one", h)
			}
			if err := h.Validate(); err != nil {
				t.Fatal(err)
			}
			rep := oracle.Report()
			acquired := map[int]bool{}
			var enters int64
			for _, op := range h.Operations() {
				if op.Process < 3 || op.Process >= 3+spec.Clients {
					t.Fatalf("%s by process %d, want clients 3 to %d", op, op.Process, 3+spec.Clients-1)
				}
				switch {
				case op.Op == history.Acquire && op.Outcome == history.OK:
					acquired[op.Lease] = true
				case op.Op == history.Enter && op.Outcome == history.OK:
					enters++
					if !acquired[op.Lease] {
						t.Errorf("%s of a lease not acquired", op)
					}
				}
			}
			if enters != rep.CriticalSections || enters == 0 {
				t.Errorf("%d ok enters, the oracle saw %d critical sections", enters, rep.CriticalSections)
			}
			res, err := linearize.Check(h, linearize.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Verdict == linearize.NotLinearizable) != (rep.Overlaps > 0) || res.Verdict == linearize.Unknown {
				t.Errorf("porcupine: %s; the oracle: %d overlaps", res.Verdict, rep.Overlaps)
			}
		})
	}
}

// A full history drops what comes after and says so.
func TestHistoryIsBounded(t *testing.T) {
	spec := workloads.Spec{Clients: 2, Keys: 1, Ops: 200, HistoryEvents: 100}
	out, err := workloads.Run(context.Background(), spec, memLocks(), oracle.New(1, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := out.History
	if h == nil || len(h.Events) != 100 || !h.Meta.Cut || h.Meta.Dropped < 200*8-100 {
		t.Fatalf("history of %d events, cut %v, %d dropped; want 100 kept, cut, the rest of 1600 dropped", len(h.Events), h.Meta.Cut, h.Meta.Dropped)
	}
	if err := h.Validate(); err != nil {
		t.Error(err)
	}
	if out, _ := workloads.Run(context.Background(), workloads.Spec{Clients: 1, Ops: 5}, memLocks(), oracle.New(1, 1), nil); out.History != nil {
		t.Error("a history without HistoryEvents")
	}
}
