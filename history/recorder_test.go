package history

import (
	"sync"
	"testing"
	"time"
)

// cycle records one acquire → enter → exit → release of process on key,
// under mu (a real lock, so that the history is of mutual exclusion).
func cycle(r *Recorder, mu *sync.Mutex, process, key int) {
	acq := r.Invoke(process, key, Acquire, NoID)
	mu.Lock()
	r.Complete(acq, OK, uint64(process+1))
	in := r.Invoke(process, key, Enter, acq)
	r.Complete(in, OK, 0)
	out := r.Invoke(process, key, Exit, acq)
	r.Complete(out, OK, 0)
	rel := r.Invoke(process, key, Release, acq)
	mu.Unlock()
	r.Complete(rel, OK, 0)
}

func TestRecorderConcurrent(t *testing.T) {
	const clients, cycles = 8, 500
	r := NewRecorder(RecorderOptions{Keys: []string{"k0", "k1"}, Limit: 1, Cell: "test"})
	var mus [2]sync.Mutex
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range cycles {
				key := (c + i) % 2
				cycle(r, &mus[key], c, key)
			}
		})
	}
	wg.Wait()
	h := r.History()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := clients * cycles * 8; len(h.Events) != want || r.Len() != want {
		t.Fatalf("%d events (Len %d), want %d", len(h.Events), r.Len(), want)
	}
	if h.Meta.Cut || h.Meta.Dropped != 0 || h.Meta.Capacity != DefaultCapacity || h.Meta.Cell != "test" {
		t.Errorf("meta %+v", h.Meta)
	}
	ops := h.Operations()
	perOp := map[Op]int{}
	for _, op := range ops {
		perOp[op.Op]++
		if op.Pending() || op.Outcome != OK || op.Return < op.Call {
			t.Fatalf("operation %v [%d, %d]", op, op.Call, op.Return)
		}
		lease := h.Events[op.Lease]
		if lease.Op != Acquire || lease.Process != op.Process || lease.Key != op.Key {
			t.Fatalf("operation %v: lease %d is %+v", op, op.Lease, lease)
		}
		if op.Op == Acquire && op.Fence != uint64(op.Process+1) {
			t.Fatalf("acquire %v: fence %d", op, op.Fence)
		}
	}
	for _, o := range []Op{Acquire, Enter, Exit, Release} {
		if perOp[o] != clients*cycles {
			t.Errorf("%d %s operations, want %d", perOp[o], o, clients*cycles)
		}
	}
	// Under the mutex, the critical sections of one key never overlap.
	lastExit := map[string]int64{}
	for _, op := range ops {
		switch op.Op {
		case Enter:
			if op.Call < lastExit[op.Key] {
				t.Fatalf("%v entered at %d, before the previous exit at %d", op, op.Call, lastExit[op.Key])
			}
		case Exit:
			lastExit[op.Key] = op.Return
		}
	}
}

// renewedCycle is one lease of process on key renewed by a goroutine of
// its own while its holder runs its cycle, the way a watchdog does: its
// renewals outcomes cycle through ok, ok, info, fail; the last one is
// invoked just before the release and completed after it returned, and
// with pending, one more is invoked and never completed.
func renewedCycle(r *Recorder, process, key int, pending bool) {
	acq := r.Invoke(process, key, Acquire, NoID)
	r.Complete(acq, OK, 0)
	renewing, releasing, released := make(chan struct{}), make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, outcome := range []Type{OK, OK, Info} {
			id := r.Invoke(process, key, Extend, acq)
			if i == 0 {
				close(renewing)
			}
			r.Complete(id, outcome, 0)
		}
		late := r.Invoke(process, key, Extend, acq)
		close(releasing)
		<-released
		r.Complete(late, Fail, 0)
		if pending {
			r.Invoke(process, key, Extend, acq)
		}
	}()
	<-renewing
	in := r.Invoke(process, key, Enter, acq)
	r.Complete(in, OK, 0)
	out := r.Invoke(process, key, Exit, acq)
	r.Complete(out, OK, 0)
	<-releasing
	rel := r.Invoke(process, key, Release, acq)
	r.Complete(rel, OK, 0)
	close(released)
	<-done
}

// renewed is a history of clients whose leases are renewed beside their
// critical sections, one renewal completed after its lease's release and
// one never completed.
func renewed(t testing.TB) *History {
	t.Helper()
	r := NewRecorder(RecorderOptions{Keys: []string{"lockbench:k0", "lockbench:k1"}, Cell: "renewals"})
	var wg sync.WaitGroup
	for c := range 3 {
		wg.Go(func() {
			for i := range 4 {
				renewedCycle(r, c, c%2, c == 2 && i == 3)
			}
		})
	}
	wg.Wait()
	return r.History()
}

// Renewals recorded from their own goroutine make a well-formed history:
// each extend is its holder's, on its lease's key; one that completes
// after its lease's release returned is still the completion of its own
// invocation; one never completed is pending.
func TestRecorderRenewals(t *testing.T) {
	h := renewed(t)
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	releasedAt := map[int]int64{}
	var extends, late, pending int
	for _, op := range h.Operations() {
		if op.Op == Release {
			releasedAt[op.Lease] = op.Return
		}
	}
	for _, op := range h.Operations() {
		if op.Op != Extend {
			continue
		}
		extends++
		lease := h.Events[op.Lease]
		if lease.Process != op.Process || lease.Key != op.Key {
			t.Errorf("%v: its lease is %+v", op, lease)
		}
		switch {
		case op.Pending():
			pending++
		case op.Return >= releasedAt[op.Lease] && op.Outcome == Fail:
			late++
		}
	}
	if extends != 3*4*4+1 || late != 3*4 || pending != 1 {
		t.Errorf("%d extends, %d completed after their release, %d pending; want %d, %d, 1", extends, late, pending, 3*4*4+1, 3*4)
	}
}

func TestRecorderCut(t *testing.T) {
	r := NewRecorder(RecorderOptions{Keys: []string{"k"}, Capacity: 11})
	var mu sync.Mutex
	cycle(r, &mu, 0, 0) // 8 events
	cycle(r, &mu, 1, 0) // 3 kept: acquire invoke and ok, enter invoke
	if r.Len() != 11 || r.Dropped() != 5 || !r.Cut() {
		t.Fatalf("Len %d, Dropped %d, Cut %v; want 11, 5, true", r.Len(), r.Dropped(), r.Cut())
	}
	h := r.History()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if !h.Meta.Cut || h.Meta.Dropped != 5 {
		t.Errorf("meta %+v, want cut with 5 dropped", h.Meta)
	}
	ops := h.Operations()
	last := ops[len(ops)-1]
	if len(ops) != 6 || last.Op != Enter || !last.Pending() || last.Outcome != Info {
		t.Errorf("operations %v: want 6, the last a pending enter", ops)
	}
}

func TestRecorderNoAllocs(t *testing.T) {
	r := NewRecorder(RecorderOptions{Keys: []string{"k"}, Capacity: 1 << 16})
	acq := r.Invoke(3, 0, Acquire, NoID)
	allocs := testing.AllocsPerRun(1000, func() {
		id := r.Invoke(3, 0, Enter, acq)
		r.Complete(id, OK, 7)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per invoke and complete, want 0", allocs)
	}
}

func TestRecorderPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"no keys":      func() { NewRecorder(RecorderOptions{}) },
		"capacity":     func() { NewRecorder(RecorderOptions{Keys: []string{"k"}, Capacity: -1}) },
		"key in range": func() { NewRecorder(RecorderOptions{Keys: []string{"k"}}).Invoke(0, 1, Acquire, NoID) },
		"lease":        func() { NewRecorder(RecorderOptions{Keys: []string{"k"}}).Invoke(0, 0, Enter, NoID) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkClock is the monotonic clock reading every event takes, the
// floor under BenchmarkRecorder's per-event cost.
func BenchmarkClock(b *testing.B) {
	start := time.Now()
	var sum time.Duration
	for range b.N {
		sum += time.Since(start)
	}
	if sum < 0 {
		b.Fatal(sum)
	}
}

// BenchmarkRecorder is the per-event cost on the hot path: one invoke and
// one complete per iteration, reported per event.
func BenchmarkRecorder(b *testing.B) {
	r := NewRecorder(RecorderOptions{Keys: []string{"k"}, Capacity: 2*b.N + 2})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		id := r.Invoke(1, 0, Acquire, NoID)
		r.Complete(id, OK, 9)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/event")
}

// BenchmarkRecorderParallel is the same with every core recording at
// once, sharing the atomic index.
func BenchmarkRecorderParallel(b *testing.B) {
	r := NewRecorder(RecorderOptions{Keys: []string{"k"}, Capacity: 2*b.N + 2})
	acq := r.Invoke(1, 0, Acquire, NoID)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := r.Invoke(1, 0, Enter, acq)
			r.Complete(id, OK, 0)
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/event")
}
