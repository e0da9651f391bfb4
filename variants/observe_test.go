package variants_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// renewals is a RenewalObserver that keeps what it was told.
type renewals struct {
	mu       sync.Mutex
	next     int64
	underWay map[int64]bool
	started  int
	outcomes []error
	problems []string
}

var _ variants.RenewalObserver = (*renewals)(nil)

func newRenewals() *renewals { return &renewals{underWay: map[int64]bool{}} }

func (r *renewals) RenewalStarted() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	r.underWay[r.next] = true
	r.started++
	return r.next
}

func (r *renewals) RenewalEnded(renewal int64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.underWay[renewal] {
		r.problems = append(r.problems, fmt.Sprintf("renewal %d ended, not under way", renewal))
	}
	delete(r.underWay, renewal)
	r.outcomes = append(r.outcomes, err)
}

// counts returns the renewals started, under way, renewed, found lost and
// of unknown outcome.
func (r *renewals) counts() (started, underWay, renewed, lost, unknown int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, err := range r.outcomes {
		switch {
		case err == nil:
			renewed++
		case errors.Is(err, variants.ErrLeaseLost):
			lost++
		default:
			unknown++
		}
	}
	return r.started, len(r.underWay), renewed, lost, unknown
}

func (r *renewals) check(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.problems {
		t.Error(p)
	}
}

// acquireObserved takes the lock called name with its renewals told to
// obs, and releases it at the end of the test if the test did not.
func (h *harness) acquireObserved(t *testing.T, l variants.Lock, name string, obs variants.RenewalObserver) variants.Lease {
	t.Helper()
	o, ok := l.(variants.OptionsAcquirer)
	if !ok {
		t.Fatalf("%s (%T) does not take acquire options", h.variant, l)
	}
	lease, err := o.AcquireWith(h.ctx, name, variants.AcquireOptions{Renewals: obs})
	if err != nil {
		t.Fatalf("AcquireWith(%s): %v", name, err)
	}
	t.Cleanup(func() { _ = lease.Release(context.Background()) })
	return lease
}

// Every variant that renews, or whose leases can be refreshed by hand,
// takes acquire options, and a plain acquire is one with none.
func TestOptionsAcquirers(t *testing.T) {
	forEachVariant(t, func(t *testing.T, h *harness) {
		l := h.lock(t, variants.Config{})
		_, takes := l.(variants.OptionsAcquirer)
		if h.info.Claims.Renewal && !takes {
			t.Errorf("%s renews (Claims.Renewal) but its lock %T takes no acquire options", h.variant, l)
		}
		lease := h.acquire(t, l, "res")
		if _, refreshes := lease.(variants.Refresher); refreshes && !takes {
			t.Errorf("%s's lease %T refreshes but its lock takes no acquire options", h.variant, lease)
		}
		if err := lease.Release(h.ctx); err != nil {
			t.Errorf("Release: %v", err)
		}
	})
}

// A renewing variant tells the observer of every renewal of a lease held
// past its TTL, each started before it ends; none is under way once
// Release returned, and none starts after. A lease lost meanwhile (a
// renewal late on a loaded machine) was told as a renewal that did not
// renew.
func TestRenewalsObserved(t *testing.T) {
	const ttl = 300 * time.Millisecond
	for _, variant := range []string{"watchdog", "sem-fair", "sem-locked", "rueidislock"} {
		t.Run(variant, func(t *testing.T) {
			t.Parallel() // each holds for a second
			forVariant(t, variant, func(t *testing.T, h *harness) {
				obs := newRenewals()
				lease := h.acquireObserved(t, h.lock(t, variants.Config{TTL: ttl, Limit: 1}), "res", obs)
				lost := false
				select {
				case <-lease.Lost():
					lost = true
				case <-time.After(3 * ttl):
				}
				if err := lease.Release(h.ctx); err != nil && !(lost && errors.Is(err, variants.ErrLeaseLost)) {
					t.Fatalf("Release: %v", err)
				}
				started, underWay, renewed, notRenewed, unknown := obs.counts()
				t.Logf("%d renewals in %v of a %v TTL: %d renewed, %d not, %d unknown; lost %v", started, 3*ttl, ttl, renewed, notRenewed, unknown, lost)
				switch {
				case underWay != 0:
					t.Errorf("%d renewals under way after Release", underWay)
				case lost && notRenewed+unknown == 0:
					t.Errorf("the lease was lost, yet all %d renewals told renewed it", renewed)
				case !lost && renewed < 2:
					t.Errorf("%d renewals renewed a lease held 3 TTLs; want at least 2", renewed)
				}
				time.Sleep(ttl / 2)
				if again, _, _, _, _ := obs.counts(); again != started {
					t.Errorf("%d renewals started after Release", again-started)
				}
				obs.check(t)
			})
		})
	}
}

// The renewal that finds the lease gone is told as ErrLeaseLost.
func TestRenewalObservedLost(t *testing.T) {
	const ttl = 300 * time.Millisecond
	for _, variant := range []string{"watchdog", "sem-fair", "rueidislock"} {
		t.Run(variant, func(t *testing.T) {
			forVariant(t, variant, func(t *testing.T, h *harness) {
				obs := newRenewals()
				lease := h.acquireObserved(t, h.lock(t, variants.Config{TTL: ttl, Limit: 1}), "res", obs)
				for _, k := range h.keys(t) { // the lock's keys: taken by someone else
					if key := k.(string); h.do(t, "TYPE", key) == "string" {
						h.do(t, "SET", key, "someone-else")
					} else {
						h.do(t, "DEL", key)
					}
				}
				select {
				case <-lease.Lost():
				case <-time.After(10 * ttl):
					t.Fatal("Lost() not closed after the lock's keys were taken")
				}
				_ = lease.Release(h.ctx)
				_, underWay, _, lost, _ := obs.counts()
				if lost == 0 || underWay != 0 {
					t.Errorf("%d renewals found the lease lost, %d under way; want at least 1, none", lost, underWay)
				}
				obs.check(t)
			})
		})
	}
}

// A Refresh by hand is told as one renewal, renewed or found lost.
func TestRefreshObserved(t *testing.T) {
	for _, variant := range []string{"redlock", "redsync", "redislock", "sem-basic", "sem-fair"} {
		t.Run(variant, func(t *testing.T) {
			forVariant(t, variant, func(t *testing.T, h *harness) {
				obs := newRenewals()
				// A TTL long enough that no renewal of its own runs.
				lease := h.acquireObserved(t, h.lock(t, variants.Config{TTL: 10 * time.Second}), "res", obs)
				r, ok := lease.(variants.Refresher)
				if !ok {
					t.Fatalf("%T does not refresh", lease)
				}
				if err := r.Refresh(h.ctx); err != nil {
					t.Fatalf("Refresh of a held lease: %v", err)
				}
				for _, k := range h.keys(t) {
					if key := k.(string); key != h.semKey("res", ":counter") {
						h.do(t, "DEL", key)
					}
				}
				if err := r.Refresh(h.ctx); !errors.Is(err, variants.ErrLeaseLost) {
					t.Errorf("Refresh after the lock's keys were deleted = %v; want ErrLeaseLost", err)
				}
				started, underWay, renewed, lost, unknown := obs.counts()
				if started != 2 || underWay != 0 || renewed != 1 || lost != 1 || unknown != 0 {
					t.Errorf("told of %d refreshes (%d under way): %d renewed, %d lost, %d unknown; want 2: 1 renewed, 1 lost",
						started, underWay, renewed, lost, unknown)
				}
				obs.check(t)
			})
		})
	}
}
