package workloads

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
)

func TestLiveBuckets(t *testing.T) {
	prev := time.Duration(0)
	for us := int64(0); us < 200_000_000; us = us*9/8 + 1 {
		i := liveBucket(us)
		bound := LiveBucketBound(i)
		if time.Duration(us)*time.Microsecond >= bound && i < liveBuckets-1 {
			t.Fatalf("%d µs in bucket %d whose bound is %v", us, i, bound)
		}
		if i > 0 && time.Duration(us)*time.Microsecond < LiveBucketBound(i-1) {
			t.Fatalf("%d µs in bucket %d, below the bound %v of the one before", us, i, LiveBucketBound(i-1))
		}
		if bound < prev {
			t.Fatalf("bounds not rising at %d µs", us)
		}
		prev = bound
	}
	if b := LiveBucketBound(liveBuckets - 1); b < 100*time.Second {
		t.Fatalf("last bound %v is below 100 s", b)
	}
}

func TestLiveQuantile(t *testing.T) {
	var l Live
	for i := range 98 { // over the shards, which Snapshot adds up
		l.Shard(i).Acquired(100 * time.Microsecond)
	}
	l.Shard(3).Acquired(10 * time.Millisecond)
	l.Shard(liveShards - 1).Acquired(20 * time.Millisecond)
	l.Shard(1).BusyTry()
	l.Shard(2).Failed()
	l.Shard(liveShards + 5).TimedOut()
	s := l.Snapshot()
	if s.Acquisitions != 100 || s.Busy != 1 || s.Errors != 1 || s.Timeouts != 1 {
		t.Fatalf("snapshot %+v", s)
	}
	if p50 := s.AcquireQuantile(0.5); p50 < 100*time.Microsecond || p50 > 113*time.Microsecond {
		t.Errorf("p50 %v, want 100 µs within 12.5 %%", p50)
	}
	if p99 := s.AcquireQuantile(0.99); p99 < 10*time.Millisecond || p99 > 11250*time.Microsecond {
		t.Errorf("p99 %v, want 10 ms within 12.5 %%", p99)
	}
	l.Shard(7).Acquired(time.Millisecond)
	d := l.Snapshot().Sub(s)
	if d.Acquisitions != 1 || d.AcquireQuantile(0.99) < time.Millisecond || d.Busy != 0 {
		t.Errorf("difference %+v", d)
	}
	var none *Live
	none.Shard(0).Acquired(time.Second) // a nil Live counts nothing and does not panic
	if none.Snapshot().Acquisitions != 0 {
		t.Error("a nil Live counted")
	}
}

// gateLock acquires once the test lets an acquisition through its gate.
type gateLock struct {
	gate      <-chan struct{}
	onAttempt func(error)
}
type instantLease struct{}

func (instantLease) Release(context.Context) error { return nil }
func (instantLease) Token() uint64                 { return 0 }
func (instantLease) Lost() <-chan struct{}         { return nil }
func (l gateLock) Acquire(ctx context.Context, _ string) (variants.Lease, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.gate:
	}
	l.onAttempt(nil)
	return instantLease{}, nil
}

// TestLiveFedByRun checks that a run feeds the Live of its spec while it
// goes and that it ends with the run's own count.
func TestLiveFedByRun(t *testing.T) {
	live := &Live{}
	gate := make(chan struct{})
	spec := Spec{Clients: 4, Keys: 4, Duration: time.Minute, Live: live}
	newLock := func(env ClientEnv) (variants.Lock, error) { return gateLock{gate: gate, onAttempt: env.OnAttempt}, nil }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome, 1)
	go func() {
		out, err := Run(ctx, spec, newLock, oracle.New(4, 1), nil)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	waitFor := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); live.Snapshot().Acquisitions < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("live acquisitions %d, want %d", live.Snapshot().Acquisitions, n)
			}
		}
	}
	for range 10 {
		gate <- struct{}{}
	}
	waitFor(10)
	for range 5 {
		gate <- struct{}{}
	}
	waitFor(15)
	cancel()
	out := <-done
	if end := live.Snapshot().Acquisitions; end != 15 || out.Measured.Acquisitions != 15 {
		t.Errorf("live counted %d acquisitions, the run %d; want 15", end, out.Measured.Acquisitions)
	}
}

// BenchmarkLiveAcquired is the cost of counting one acquisition in a Live
// that every goroutine feeds, each in a shard of its own as the clients do
// (shard), or all in one.
func BenchmarkLiveAcquired(b *testing.B) {
	for _, own := range []bool{true, false} {
		name := map[bool]string{true: "own-shard", false: "one-shard"}[own]
		b.Run(name, func(b *testing.B) {
			var l Live
			var next atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				sh := l.Shard(0)
				if own {
					sh = l.Shard(int(next.Add(1)))
				}
				for pb.Next() {
					sh.Acquired(150 * time.Microsecond)
				}
			})
		})
	}
}
