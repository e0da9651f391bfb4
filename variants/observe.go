package variants

import "context"

// This file lets a caller watch the renewals of a lease as the variant
// makes them: the watchdog's compare-and-PEXPIRE loop, the renewing
// semaphores' refreshes, rueidislock's extensions of its keys, and every
// Refresh by hand. A workload that records a history (package history)
// turns each into an extend operation; the variants know nothing of it.

// RenewalObserver is told of every renewal of one lease, each as a call
// just before the renewal's command is sent and one just after it
// returned, from the goroutine that renews: the lease's renewal goroutine,
// or the caller of Refresh. Several renewals of one lease may be under way
// at once (rueidislock extends each of its keys on a goroutine of its
// own), and one may still be under way when Release is called: Release
// waits for it.
type RenewalObserver interface {
	// RenewalStarted is called just before a renewal is sent; what it
	// returns is handed back to the same renewal's RenewalEnded.
	RenewalStarted() (renewal int64)
	// RenewalEnded is called just after the renewal returned, with its
	// outcome: nil when the lease was renewed, ErrLeaseLost when it was
	// found lost (not renewed), any other error when the outcome is
	// unknown (a timeout, a Redis error).
	RenewalEnded(renewal int64, err error)
}

// AcquireOptions are the options of one acquire of an [OptionsAcquirer].
// The zero value is a plain Acquire.
type AcquireOptions struct {
	// Renewals, when set, is told of every renewal of the lease the
	// acquire grants, from its first (which may come before the acquire
	// returns) to its last. Default: nobody is told.
	Renewals RenewalObserver
}

// OptionsAcquirer is a Lock whose acquire takes options. Every variant
// whose leases are renewed (Claims.Renewal) or can be refreshed by hand
// (Refresher) implements it; Acquire is AcquireWith with zero options.
type OptionsAcquirer interface {
	Lock
	AcquireWith(ctx context.Context, name string, opts AcquireOptions) (Lease, error)
}

// observed runs the renewal renew, told to obs when obs is set.
func observed(ctx context.Context, obs RenewalObserver, renew func(context.Context) error) error {
	if obs == nil {
		return renew(ctx)
	}
	id := obs.RenewalStarted()
	err := renew(ctx)
	obs.RenewalEnded(id, err)
	return err
}
