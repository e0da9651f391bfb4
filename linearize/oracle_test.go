package linearize

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/oracle"
)

// A lock for the test's clients: a semaphore of limit places that lets
// one acquire in every bypassEvery through at once (0: never).
type testLock struct {
	places      chan struct{}
	mu          sync.Mutex
	n           int
	bypassEvery int
}

func (l *testLock) acquire() (bypassed bool) {
	l.mu.Lock()
	l.n++
	bypassed = l.bypassEvery > 0 && l.n%l.bypassEvery == 0
	l.mu.Unlock()
	if !bypassed {
		l.places <- struct{}{}
	}
	return bypassed
}

func (l *testLock) release(bypassed bool) {
	if !bypassed {
		<-l.places
	}
}

// run drives clients through cycles against a real oracle of limit
// oracleLimit, recording the history as the workload will: acquire →
// Enter → hold → Exit → release, each bracketed by Invoke and Complete.
func run(t *testing.T, clients, cycles, places, bypassEvery, oracleLimit int) (*history.History, oracle.Report) {
	t.Helper()
	lock := &testLock{places: make(chan struct{}, places), bypassEvery: bypassEvery}
	oracle := oracle.New(1, oracleLimit)
	rec := history.NewRecorder(history.RecorderOptions{Keys: []string{"lockbench:k0"}, Limit: places, Capacity: clients * cycles * 8})
	var wg sync.WaitGroup
	for c := range clients {
		rnd := rand.New(rand.NewPCG(uint64(c), 9))
		wg.Go(func() {
			for range cycles {
				acq := rec.Invoke(c, 0, history.Acquire, history.NoID)
				bypassed := lock.acquire()
				rec.Complete(acq, history.OK, 0)
				in := rec.Invoke(c, 0, history.Enter, acq)
				entry := oracle.Enter(0)
				rec.Complete(in, history.OK, 0)
				time.Sleep(time.Duration(50+rnd.IntN(150)) * time.Microsecond)
				out := rec.Invoke(c, 0, history.Exit, acq)
				oracle.Exit(entry)
				rec.Complete(out, history.OK, 0)
				rel := rec.Invoke(c, 0, history.Release, acq)
				lock.release(bypassed)
				rec.Complete(rel, history.OK, 0)
			}
		})
	}
	wg.Wait()
	return rec.History(), oracle.Report()
}

// The verdict of the critical-sections view agrees with the oracle that
// watched the same run. Where the times prove two holders inside at once,
// the oracle saw them too, and where the oracle saw none the check finds
// none: both hold whatever the machine's load. The converse (an overlap
// the oracle saw is proven by the times) holds where overlaps are many and
// long, as without a lock; a single overlap within an exit's nanoseconds
// may not be provable, so the partly broken runs only log it.
func TestAgreesWithOracle(t *testing.T) {
	tests := []struct {
		name                     string
		places, bypass, limit    int
		wantOverlaps, wantStrict bool
	}{
		{"lock", 1, 0, 1, false, true},
		{"no lock", 1, 1, 1, true, true},
		{"semaphore", 2, 0, 2, false, true},
		{"semaphore as a lock", 2, 0, 1, true, false},
		{"lock, broken now and then", 1, 7, 1, true, false},
		{"semaphore, broken now and then", 2, 5, 2, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, rep := run(t, 4, 60, tt.places, tt.bypass, tt.limit)
			res, err := Check(h, Options{Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("oracle: %d overlaps, max occupancy %d; check: %s, %d of %d segments failing",
				rep.Overlaps, rep.MaxOccupancy, res.Verdict, res.FailingSegments, res.Segments)
			if res.Verdict == Unknown {
				t.Fatal("verdict unknown")
			}
			if rep.Overlaps == 0 && res.Verdict != Linearizable {
				t.Errorf("the oracle saw no overlap, the check says %s (window %+v)", res.Verdict, res.Window)
			}
			if res.Verdict == NotLinearizable && rep.Overlaps == 0 {
				t.Errorf("not linearizable, but the oracle saw no overlap")
			}
			if tt.wantOverlaps != (rep.Overlaps > 0) {
				t.Fatalf("oracle overlaps %d: the test's lock is not what it should be", rep.Overlaps)
			}
			if tt.wantStrict && (rep.Overlaps > 0) != (res.Verdict == NotLinearizable) {
				t.Errorf("oracle overlaps %d, verdict %s", rep.Overlaps, res.Verdict)
			}
			if w := res.Window; w != nil && len(w.Leases) != tt.limit+1 {
				t.Errorf("window of %d leases, want limit+1 = %d: %+v", len(w.Leases), tt.limit+1, w)
			}
			// The lock itself never vouched for more than its places at once
			// unless it was bypassed.
			leases, err := Check(h, Options{Limit: tt.places, View: history.Leases})
			if err != nil {
				t.Fatal(err)
			}
			if tt.bypass == 0 && leases.Verdict != Linearizable {
				t.Errorf("leases view of a working lock: %s (window %+v)", leases.Verdict, leases.Window)
			}
		})
	}
}
