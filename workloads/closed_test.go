package workloads_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// memLock is an in-process lock for testing the driver alone (no Redis is
// measured here): a mutex per name, held across Acquire and Release.
type memLock struct {
	mu        *sync.Map // name → *sync.Mutex
	onAttempt func(error)
}

type memLease struct{ m *sync.Mutex }

func (l memLease) Release(context.Context) error { l.m.Unlock(); return nil }
func (memLease) Token() uint64                   { return 0 }
func (memLease) Lost() <-chan struct{}           { return nil }

func (l memLock) Acquire(ctx context.Context, name string) (variants.Lease, error) {
	m, _ := l.mu.LoadOrStore(name, new(sync.Mutex))
	for {
		ok := m.(*sync.Mutex).TryLock()
		if ok {
			l.onAttempt(nil)
			return memLease{m.(*sync.Mutex)}, nil
		}
		l.onAttempt(variants.ErrBusy)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Microsecond):
		}
	}
}

func memLocks() workloads.NewLock {
	shared := new(sync.Map)
	return func(env workloads.ClientEnv) (variants.Lock, error) {
		return memLock{mu: shared, onAttempt: env.OnAttempt}, nil
	}
}

func mustDist(t *testing.T, s string) workloads.Distribution {
	t.Helper()
	d, err := workloads.ParseDistribution(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRunStopsAfterOps(t *testing.T) {
	spec := workloads.Spec{Clients: 4, Keys: 2, Hold: mustDist(t, "100us"), Ops: 200}
	oracle := oracle.New(2, 1)
	out, err := workloads.Run(context.Background(), spec, memLocks(), oracle, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Measured.Acquisitions != 200 {
		t.Errorf("acquisitions %d, want exactly 200", out.Measured.Acquisitions)
	}
	if out.Measured.Attempts < 200 || out.Measured.Fairness.Clients != 4 {
		t.Errorf("attempts %d, fairness %+v", out.Measured.Attempts, out.Measured.Fairness)
	}
	r := oracle.Report()
	if r.Overlaps != 0 || r.LostUpdates != 0 || r.CriticalSections != 200 {
		t.Errorf("oracle %+v, want 200 clean critical sections", r)
	}
	if out.Elapsed <= 0 || out.Interrupted {
		t.Errorf("elapsed %v, interrupted %v", out.Elapsed, out.Interrupted)
	}
}

func TestRunKeepsWarmupApart(t *testing.T) {
	spec := workloads.Spec{Clients: 2, Keys: 4, Hold: mustDist(t, "200us"), Warmup: 100 * time.Millisecond, Duration: 150 * time.Millisecond}
	measuring := false
	out, err := workloads.Run(context.Background(), spec, memLocks(), oracle.New(4, 1), func() { measuring = true })
	if err != nil {
		t.Fatal(err)
	}
	if !measuring {
		t.Error("atMeasure was not called")
	}
	if out.Warmup.Acquisitions == 0 || out.Measured.Acquisitions == 0 {
		t.Errorf("warm-up %d, measured %d acquisitions; want both > 0", out.Warmup.Acquisitions, out.Measured.Acquisitions)
	}
	if out.Elapsed < 140*time.Millisecond || out.Elapsed > 160*time.Millisecond {
		t.Errorf("measured phase %v, want the 150ms asked", out.Elapsed)
	}
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	spec := workloads.Spec{Clients: 3, Hold: mustDist(t, "10s"), Duration: time.Hour}
	began := time.Now()
	out, err := workloads.Run(ctx, spec, memLocks(), oracle.New(1, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("a 10s hold delayed the stop: took %v", took)
	}
	if !out.Interrupted || out.Measured.Acquisitions < 1 {
		t.Errorf("interrupted %v, %d acquisitions; want true and the one held", out.Interrupted, out.Measured.Acquisitions)
	}
}

func TestSpecValidate(t *testing.T) {
	for _, s := range []workloads.Spec{
		{Clients: 0, Duration: time.Second},
		{Clients: 1},
		{Clients: 1, Duration: -time.Second},
		{Clients: 1, Ops: -1, Duration: time.Second},
		{Clients: 1, Keys: -1, Duration: time.Second},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if err := (workloads.Spec{Clients: 1, Ops: 5}).Validate(); err != nil {
		t.Errorf("ops without duration: %v", err)
	}
}
