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

// A renewing variant's cell held longer than its TTL records its renewals:
// extends of each lease by its holder, on its lock, every one invoked
// after the lease's acquire returned and before its release was invoked,
// and over by the time the release returned (Release waits for a renewal
// under way). Each lease held past two renewal intervals has an ok
// extend, and porcupine finds the cell linearizable in both views, as the
// oracle counts no overlap. sem-fair is checked with as many clients as
// permits: contended, its two transactions race and admit one holder too
// many now and then (see TestHistoryRecordsContendedRenewals).
func TestHistoryRecordsRenewals(t *testing.T) {
	conn, err := clients.New(t.Context(), topotest.Endpoint(t), clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	const ttl = 240 * time.Millisecond // renewed every 80ms
	for _, tc := range []struct {
		variant string
		limit   int
		spec    workloads.Spec
	}{
		{"watchdog", 1, workloads.Spec{Clients: 3, Keys: 2}},
		{"sem-fair", 2, workloads.Spec{Clients: 2, Keys: 1}},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			spec := tc.spec
			spec.Hold, spec.Duration, spec.HistoryEvents = mustDist(t, "600ms"), 1500*time.Millisecond, 1<<16
			oracle := oracle.New(spec.Keys, tc.limit)
			newLock := func(env workloads.ClientEnv) (variants.Lock, error) {
				return variants.New(tc.variant, variants.Config{Conn: conn, Prefix: "lbtest:extend:" + tc.variant + ":",
					TTL: ttl, Limit: tc.limit, OnAttempt: env.OnAttempt, AtStep: env.AtStep})
			}
			out, err := workloads.Run(context.Background(), spec, newLock, oracle, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := wholeHistory(t, out, tc.limit)
			checkExtends(t, h, ttl/3)
			rep := oracle.Report()
			if rep.Overlaps != 0 {
				t.Errorf("the oracle counted %d overlaps", rep.Overlaps)
			}
			for _, view := range []history.View{history.CriticalSections, history.Leases} {
				res, err := linearize.Check(h, linearize.Options{View: view})
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != linearize.Linearizable {
					t.Errorf("%s: porcupine says %s (window %+v)", view, res.Verdict, res.Window)
				}
			}
		})
	}
}

// sem-fair contended (four clients for two permits): its renewals are
// recorded just the same, and porcupine's verdict on the critical sections
// agrees with the oracle, whether or not the race admitted a third holder.
func TestHistoryRecordsContendedRenewals(t *testing.T) {
	conn, err := clients.New(t.Context(), topotest.Endpoint(t), clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	const ttl, limit = 240 * time.Millisecond, 2
	spec := workloads.Spec{Clients: 4, Keys: 1, Hold: mustDist(t, "600ms"), Duration: 1500 * time.Millisecond, HistoryEvents: 1 << 20}
	oracle := oracle.New(1, limit)
	newLock := func(env workloads.ClientEnv) (variants.Lock, error) {
		return variants.New("sem-fair", variants.Config{Conn: conn, Prefix: "lbtest:extend:contended:",
			TTL: ttl, Limit: limit, OnAttempt: env.OnAttempt, AtStep: env.AtStep})
	}
	out, err := workloads.Run(context.Background(), spec, newLock, oracle, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := wholeHistory(t, out, limit)
	checkExtends(t, h, ttl/3)
	res, err := linearize.Check(h, linearize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := oracle.Report()
	t.Logf("porcupine: %s; the oracle: %d overlaps", res.Verdict, rep.Overlaps)
	if (res.Verdict == linearize.NotLinearizable) != (rep.Overlaps > 0) || res.Verdict == linearize.Unknown {
		t.Errorf("porcupine: %s; the oracle: %d overlaps", res.Verdict, rep.Overlaps)
	}
}

// wholeHistory is out's history, checked whole and well formed, with the
// cell's limit in its header.
func wholeHistory(t *testing.T, out workloads.Outcome, limit int) *history.History {
	t.Helper()
	h := out.History
	if h == nil || h.Meta.Cut {
		t.Fatalf("history %v: want a whole one", h)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	h.Meta.Limit = limit
	return h
}

// checkExtends checks h's extends against their leases' other operations;
// every lease held longer than interval must have an ok extend.
func checkExtends(t *testing.T, h *history.History, interval time.Duration) {
	t.Helper()
	type lease struct {
		acquire, release *history.Operation
		exitCall         int64
		extends          []history.Operation
	}
	leases := map[int]*lease{}
	ops := h.Operations()
	for i := range ops {
		op := &ops[i]
		l := leases[op.Lease]
		if l == nil {
			l = &lease{}
			leases[op.Lease] = l
		}
		switch op.Op {
		case history.Acquire:
			l.acquire = op
		case history.Release:
			l.release = op
		case history.Exit:
			l.exitCall = op.Call
		case history.Extend:
			l.extends = append(l.extends, *op)
		}
	}
	var extends, ok, held int
	for _, l := range leases {
		if l.acquire == nil || l.acquire.Outcome != history.OK {
			if len(l.extends) > 0 {
				t.Errorf("extends %v of a lease not acquired", l.extends)
			}
			continue
		}
		if l.release == nil || l.release.Pending() {
			t.Errorf("lease %v not released", l.acquire)
			continue
		}
		renewed := false
		for _, e := range l.extends {
			extends++
			switch {
			case e.Process != l.acquire.Process:
				t.Errorf("%s by process %d; the lease is %d's", e, e.Process, l.acquire.Process)
			case e.Pending():
				t.Errorf("%s never completed", e)
			case e.Call <= l.acquire.Return:
				t.Errorf("%s invoked at %d, before its acquire returned at %d", e, e.Call, l.acquire.Return)
			case e.Call >= l.release.Call:
				t.Errorf("%s invoked at %d, after its release was invoked at %d", e, e.Call, l.release.Call)
			case e.Return > l.release.Return:
				t.Errorf("%s returned at %d, after its release returned at %d", e, e.Return, l.release.Return)
			}
			if e.Outcome == history.OK {
				ok++
				renewed = true
			}
		}
		if time.Duration(l.exitCall-l.acquire.Return) > 2*interval {
			held++
			if !renewed {
				t.Errorf("lease %v held %v (renewed every %v) without an ok extend: %v",
					l.acquire, time.Duration(l.exitCall-l.acquire.Return), interval, l.extends)
			}
		}
	}
	t.Logf("%d leases held past two renewal intervals, %d extends, %d ok", held, extends, ok)
	if held == 0 || ok == 0 {
		t.Errorf("%d leases held long, %d ok extends: want some of each", held, ok)
	}
}
