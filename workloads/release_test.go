package workloads

import (
	"context"
	"errors"
	"testing"
	"time"
)

type valueKey struct{}

// A release context carries the run's values but not its end, and is done
// once a release outlasts the timeout, not before; releases that end in
// time leave it reusable. The timer, set for an earlier release, sets
// itself again for a later one; after an idle stretch it has stopped, and
// the next release sets it.
func TestReleaseContext(t *testing.T) {
	const timeout = 200 * time.Millisecond
	run, stop := context.WithCancel(context.WithValue(context.Background(), valueKey{}, "run"))
	stop() // a release runs after the run ended
	start := time.Now()
	r := newReleaseContext(run, start, timeout)
	defer r.timer.Stop()

	if r.Value(valueKey{}) != "run" {
		t.Errorf("Value = %v, want the run's", r.Value(valueKey{}))
	}
	if err := context.Cause(r); err != nil {
		t.Errorf("Cause = %v before any deadline, want nil (the run's end does not reach a release)", err)
	}

	// Short releases, back to back and across the timer's first look.
	for time.Since(start) < 3*timeout {
		now := time.Now()
		r.arm(now)
		if d, ok := r.Deadline(); !ok || d.Sub(now) != timeout {
			t.Fatalf("Deadline = %v, %v; want %v after the release began", d, ok, timeout)
		}
		time.Sleep(timeout / 8)
		if r.Err() != nil || !r.disarm() {
			t.Fatalf("a release of %v expired a context of %v", time.Since(now), timeout)
		}
	}
	// Idle for longer than the timeout: the timer stops watching.
	time.Sleep(2 * timeout)

	// A release that ends in time and sets the timer; another, begun while
	// the timer is set for the first, that outlasts it.
	began := time.Now()
	r.arm(began)
	time.Sleep(timeout / 4)
	if !r.disarm() {
		t.Fatalf("a release of %v expired a context of %v", time.Since(began), timeout)
	}
	began = time.Now()
	r.arm(began)
	select {
	case <-r.Done():
	case <-time.After(10 * timeout):
		t.Fatal("a release outlasting the timeout 10 times is not done")
	}
	if took := time.Since(began); took < timeout {
		t.Errorf("done after %v, before the timeout %v", took, timeout)
	}
	if err := r.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err = %v, want DeadlineExceeded", err)
	}
	if r.disarm() {
		t.Error("disarm of an expired context says it may be armed again")
	}
}
