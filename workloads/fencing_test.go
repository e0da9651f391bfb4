package workloads_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// leakyFencedLock grants every acquire at once (no exclusion at all) with
// a token from a shared counter, so holders overlap and some write after a
// holder with a newer token did: stale writes without Redis.
type leakyFencedLock struct {
	tokens     *atomic.Uint64
	releaseErr error
	onAttempt  func(error)
}

type leakyFencedLease struct {
	token      uint64
	releaseErr error
}

func (l leakyFencedLease) Release(context.Context) error { return l.releaseErr }
func (l leakyFencedLease) Token() uint64                 { return l.token }
func (leakyFencedLease) Lost() <-chan struct{}           { return nil }

func (l leakyFencedLock) Acquire(context.Context, string) (variants.Lease, error) {
	l.onAttempt(nil)
	return leakyFencedLease{token: l.tokens.Add(1), releaseErr: l.releaseErr}, nil
}

func leakyFencedLocks(releaseErr error) workloads.NewLock {
	tokens := new(atomic.Uint64)
	return func(env workloads.ClientEnv) (variants.Lock, error) {
		return leakyFencedLock{tokens: tokens, releaseErr: releaseErr, onAttempt: env.OnAttempt}, nil
	}
}

// The write carries the lease's token: overlapping holders with random
// hold times write out of token order. Counted, the stale writes are
// applied; rejected, none is applied and each refused holder counts one
// lost lease, not a second one when its release finds the lock gone.
func TestFencedWrites(t *testing.T) {
	tests := []struct {
		name       string
		reject     bool
		releaseErr error
	}{
		{"count", false, nil},
		{"reject", true, nil},
		{"reject, release finds the lease gone", true, variants.ErrLeaseLost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := workloads.Spec{Clients: 4, Keys: 1, Hold: mustDist(t, "uniform:100us-2ms"), Duration: 200 * time.Millisecond}
			oracle := oracle.New(1, 1)
			if tc.reject {
				oracle.RejectStaleWrites()
			}
			out, err := workloads.Run(context.Background(), spec, leakyFencedLocks(tc.releaseErr), oracle, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := oracle.Report()
			leaseLost := out.Measured.LeaseLost + out.Warmup.LeaseLost
			t.Logf("%+v, lease lost %d", r, leaseLost)
			switch {
			case !tc.reject:
				if r.StaleWrites == 0 || r.RejectedWrites != 0 || leaseLost != 0 {
					t.Errorf("count: %d stale, %d rejected, %d lease lost; want > 0, 0, 0", r.StaleWrites, r.RejectedWrites, leaseLost)
				}
			case tc.releaseErr == nil:
				if r.StaleWrites != 0 || r.RejectedWrites == 0 || leaseLost != r.RejectedWrites {
					t.Errorf("reject: %d stale, %d rejected, %d lease lost; want 0, > 0, one per rejected write", r.StaleWrites, r.RejectedWrites, leaseLost)
				}
			default:
				// Every holding ends in a lost release or a refused write:
				// one lost lease each.
				if holdings := r.CriticalSections + r.RejectedWrites; r.RejectedWrites == 0 || leaseLost != holdings {
					t.Errorf("%d rejected, %d lease lost for %d holdings; want > 0 rejected and one per holding", r.RejectedWrites, leaseLost, holdings)
				}
			}
		})
	}
}
