package workloads_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// failFastLock is memLock that tries once: a held lock fails the acquire
// with ErrBusy, as a semaphore without retry does.
type failFastLock struct{ memLock }

func (l failFastLock) Acquire(ctx context.Context, name string) (variants.Lease, error) {
	m, _ := l.mu.LoadOrStore(name, new(sync.Mutex))
	if m.(*sync.Mutex).TryLock() {
		l.onAttempt(nil)
		return memLease{m.(*sync.Mutex)}, nil
	}
	l.onAttempt(variants.ErrBusy)
	return nil, variants.ErrBusy
}

// countingOracle counts the waits the workload reports.
type countingOracle struct {
	*oracle.Memory
	waits, stops atomic.Int64
}

func (o *countingOracle) WaitingAt(r int, at time.Time) { o.waits.Add(1); o.Memory.WaitingAt(r, at) }
func (o *countingOracle) GaveUpAt(r int, at time.Time)  { o.stops.Add(1); o.Memory.GaveUpAt(r, at) }

// The workload tells the oracle a client waits from its first busy try,
// and that it stops, once per wait: a client that finds the lock free
// never waits; a fail-fast client that tries again at once goes on
// waiting over its failed acquires; one that thinks between tries, or
// serves an open loop's arrivals, stops each time.
func TestWaitsTheOracleHears(t *testing.T) {
	blocking := memLocks()
	failFast := func() workloads.NewLock {
		shared := new(sync.Map)
		return func(env workloads.ClientEnv) (variants.Lock, error) {
			return failFastLock{memLock{mu: shared, onAttempt: env.OnAttempt}}, nil
		}
	}
	for _, tc := range []struct {
		name    string
		newLock workloads.NewLock
		spec    workloads.Spec
		check   func(t *testing.T, waits int64, out workloads.Outcome)
	}{
		{"alone", blocking, workloads.Spec{Clients: 1, Hold: mustDist(t, "1ms"), Think: mustDist(t, "5ms"), Duration: 150 * time.Millisecond},
			func(t *testing.T, waits int64, out workloads.Outcome) {
				if waits != 0 {
					t.Errorf("%d waits of a lone client", waits)
				}
			}},
		{"blocking", blocking, workloads.Spec{Clients: 4, Hold: mustDist(t, "2ms"), Duration: 150 * time.Millisecond},
			func(t *testing.T, waits int64, out workloads.Outcome) {
				if waits == 0 || waits > out.Measured.Acquisitions+out.Warmup.Acquisitions+4 {
					t.Errorf("%d waits for %d acquisitions; want one at most per acquisition", waits, out.Measured.Acquisitions)
				}
			}},
		{"fail-fast, trying again at once", failFast(), workloads.Spec{Clients: 4, Hold: mustDist(t, "2ms"), Duration: 150 * time.Millisecond},
			func(t *testing.T, waits int64, out workloads.Outcome) {
				if busy := out.Measured.FailedAttempts; waits == 0 || waits > out.Measured.Acquisitions+4 || busy < 4*waits {
					t.Errorf("%d waits, %d busy acquires, %d acquisitions; want a wait to span many busy acquires", waits, busy, out.Measured.Acquisitions)
				}
			}},
		{"fail-fast, thinking", failFast(), workloads.Spec{Clients: 4, Hold: mustDist(t, "2ms"), Think: mustDist(t, "100us"), Duration: 150 * time.Millisecond},
			func(t *testing.T, waits int64, out workloads.Outcome) {
				if busy := out.Measured.FailedAttempts; waits < busy {
					t.Errorf("%d waits, %d busy acquires; want a wait per busy acquire (each ends in a think)", waits, busy)
				}
			}},
		{"fail-fast, open loop", failFast(), workloads.Spec{Clients: 4, Rate: 2000, Hold: mustDist(t, "2ms"), Duration: 150 * time.Millisecond},
			func(t *testing.T, waits int64, out workloads.Outcome) {
				if busy := out.Measured.FailedAttempts; busy == 0 || waits < busy {
					t.Errorf("%d waits, %d busy arrivals; want a wait per busy arrival (each arrival is served once)", waits, busy)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oracle := &countingOracle{Memory: oracle.New(1, 1)}
			out, err := workloads.Run(context.Background(), tc.spec, tc.newLock, oracle, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w, s := oracle.waits.Load(), oracle.stops.Load(); w != s {
				t.Errorf("%d waits, %d stopped: every wait must end", w, s)
			}
			tc.check(t, oracle.waits.Load(), out)
		})
	}
}
