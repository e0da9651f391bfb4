package driver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/variants"
)

// A driver's client as a variants.Lock (NewLock): lock names under the
// prefix, each request one attempt, leases with the driver's validity,
// busy and lost as lockbench's own variants say them, and a definite
// error also variants.ErrDefinite.
func TestLockAdapter(t *testing.T) {
	cfg := config(t)
	cfg.Retry = variants.RetryPolicy{Kind: variants.RetryNone}
	p := start(t, drivertest.GoLua(t), cfg)
	var attempts []error
	var acquired []*driver.Lease
	lock := driver.NewLock(p.Client(0), driver.LockOptions{Prefix: prefix,
		OnAttempt: func(err error) { attempts = append(attempts, err) }, OnAcquired: func(l *driver.Lease) { acquired = append(acquired, l) }})
	other := driver.NewLock(p.Client(1), driver.LockOptions{Prefix: prefix})
	ctx := context.Background()

	before := time.Now()
	lease, err := lock.Acquire(ctx, "adapter")
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 1 || attempts[0] != nil || len(acquired) != 1 || acquired[0].Key != key("adapter") {
		t.Errorf("attempts %v, acquired %+v", attempts, acquired)
	}
	valid, ok := lease.(variants.Validity)
	if !ok || valid.ValidUntil().Before(before) || valid.ValidUntil().After(time.Now().Add(variants.DefaultTTL)) {
		t.Errorf("lease %T: want variants.Validity within the default TTL", lease)
	}
	if lease.Token() != 0 || lease.Lost() == nil {
		t.Errorf("go-lua has no fencing (token %d) and its leases a Lost channel (%v)", lease.Token(), lease.Lost())
	}
	if _, err := other.Acquire(ctx, "adapter"); !errors.Is(err, variants.ErrBusy) || errors.Is(err, variants.ErrDefinite) {
		t.Errorf("a held lock with no retry: %v, want variants.ErrBusy", err)
	}
	if err := lease.Release(ctx); err != nil {
		t.Errorf("release: %v", err)
	}
	if err := lease.Release(ctx); !errors.Is(err, variants.ErrLeaseLost) {
		t.Errorf("second release: %v, want variants.ErrLeaseLost", err)
	}

	// A key outside the driver's prefix: go-lua refuses it, definitely.
	outside := driver.NewLock(p.Client(2), driver.LockOptions{Prefix: "elsewhere:"})
	if _, err := outside.Acquire(ctx, "adapter"); !errors.Is(err, variants.ErrDefinite) || !errors.Is(err, driver.ErrDefinite) {
		t.Errorf("a key outside the prefix: %v, want a definite error", err)
	}
}
