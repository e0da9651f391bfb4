package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// notify under contention: 32 clients on one lock name keep mutual
// exclusion, and the acquisitions that had to wait came from wake tokens,
// not from the timed fallback. Every acquisition is counted once: at the
// first try, after a token, or after a fallback (no warm-up, so the
// counters and the acquisitions cover the same phase).
func TestNotifyWakesWaitersUnderContention(t *testing.T) {
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			rec := runPlan(t, plan.Plan{
				Variants: []string{"notify"}, Clients: []int{32}, Client: lib,
				Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: time.Second},
			})
			c := rec.Cells[0]
			v := c.Violations
			if v.Overlaps != 0 || v.LostUpdates != 0 || c.Errors != 0 || c.Timeouts != 0 {
				t.Errorf("overlaps %d, lost updates %d, errors %d, timeouts %d; want 0", v.Overlaps, v.LostUpdates, c.Errors, c.Timeouts)
			}
			first, woken, fallback := c.Counters[variants.NoteFirstTry], c.Counters[variants.NoteWoken], c.Counters[variants.NoteFallback]
			if first+woken+fallback != c.Acquisitions {
				t.Errorf("counters %v sum to %d; want the %d acquisitions", c.Counters, first+woken+fallback, c.Acquisitions)
			}
			if c.Acquisitions < 100 || woken <= c.Acquisitions/2 || woken <= 10*fallback {
				t.Errorf("%d acquisitions, counters %v; want most of them woken, few by the fallback", c.Acquisitions, c.Counters)
			}
			t.Logf("%d acquisitions, counters %v, handoff p50 %.0fµs, %.2f tries per acquisition",
				c.Acquisitions, c.Counters, c.HandoffLatencyUS.P50, float64(c.Attempts)/float64(c.Acquisitions))
		})
	}
}

// wait-replicas on a master with one replica, which is promoted 1.5 s in.
// The record counts the acquisitions the replica acknowledged (before) and
// those none did (after: the old master has no replica any more), and they
// add up to the acquisitions. The failover comes no earlier than 1.5 s: a
// replica fresh from its (diskless) initial sync may get no writes until
// its first periodic ACK, up to a second later, and every WAIT before that
// answers 0.
//
// Overlaps: 0, and the test says so, because it is what is true here and
// not because WAIT would prevent them. On local:replicated the failover
// is REPLICAOF NO ONE on the replica; the old master stays a master and
// every client keeps using it (nothing redirects them), so the lock lives
// on one node throughout. Losing a lock in a failover needs clients that
// follow the promoted replica (local:sentinel): see the README.
func TestWaitReplicasUnderFailover(t *testing.T) {
	topotest.Faulted(t)
	failover := func(t *testing.T, lib string, strict bool) record.Cell {
		rec, err := runner.Run(context.Background(), plan.Plan{
			Variants: []string{"wait-replicas"}, Clients: []int{4}, Client: lib, WaitStrict: strict,
			AcquireTimeout: 300 * time.Millisecond,
			Topology:       topologies.Spec{Name: "local:replicated?replicas=1"},
			Faults:         []faults.Fault{mustFault(t, "at=1500ms failover node=replica-1")},
			Workload:       workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 2500 * time.Millisecond},
		}, runner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := rec.Cells[0]
		if c.Error != "" || len(c.Faults) != 1 || c.Faults[0].Action != "failover" || c.Faults[0].Error != "" {
			t.Fatalf("cell error %q, fault events %+v", c.Error, c.Faults)
		}
		if c.Violations.Overlaps != 0 {
			t.Errorf("%d overlaps; want 0 (the clients never leave the old master)", c.Violations.Overlaps)
		}
		t.Logf("failover at %.2fs: %d acquisitions, counters %v, %d overlaps, %d timeouts, %d errors",
			c.Faults[0].AtS, c.Acquisitions, c.Counters, c.Violations.Overlaps, c.Timeouts, c.Errors)
		return c
	}
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			c := failover(t, lib, false)
			acked, unacked := c.Counters[variants.NoteAcked], c.Counters[variants.NoteUnacked]
			if acked+unacked != c.Acquisitions || acked == 0 || unacked == 0 {
				t.Errorf("acked %d + unacked %d, of %d acquisitions; want both > 0, summing to the acquisitions", acked, unacked, c.Acquisitions)
			}
		})
	}
	// With --wait-strict an acquisition no replica acknowledged is given
	// back: none is kept after the failover, so the last half second (from
	// 2 s) acquires nothing, and the acquires time out.
	t.Run("strict", func(t *testing.T) {
		c := failover(t, "rueidis", true)
		acked, released := c.Counters[variants.NoteAcked], c.Counters[variants.NoteUnackedReleased]
		if acked != c.Acquisitions || acked == 0 || c.Counters[variants.NoteUnacked] != 0 || released == 0 {
			t.Errorf("%d acquisitions, counters %v; want every acquisition acked, some released unacked", c.Acquisitions, c.Counters)
		}
		if n := len(c.Series); n < 2 || c.Series[n-1].Acquisitions != 0 || c.Timeouts == 0 {
			t.Errorf("series %+v, %d timeouts; want no acquisition in the last half second, and timeouts", c.Series, c.Timeouts)
		}
	})
}
