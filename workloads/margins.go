package workloads

import (
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/variants"
)

// This file measures the margins of expiring locks (metrics.Margins): how
// long a lease had left when its acquire returned, how long a holder
// stayed in its critical section after its lease expired, and how long
// after the expiry a holder was told the lease was lost. Without a lease
// time (Spec.LeaseTTL 0) each hook costs a nil check.
//
// A lease's expiry is estimated conservatively (never later than it can
// be):
//   - from its acquisition: the send time of the successful try plus the
//     TTL. The workload does not see the tries' sends; it takes the end of
//     the acquire's last busy try, or the acquire's call when none was
//     busy, both before that send.
//   - from the variant, where the lease says more: its own validity
//     (variants.Validity, Redlock's TTL less the acquisition's time and a
//     drift allowance), or, for a lease renewed in the background
//     (variants.Renewed), the send time of its latest renewal that
//     succeeded plus the TTL (rueidislock also tells its acquisition's).
//
// A variant that renews its leases without saying when (Spec.Renews, the
// lease no variants.Renewed) gets only the validity left: its late time and
// notices cannot be told.

// newMargins are the margins of a stripe, nil when the cell's locks do
// not expire.
func (d *driver) newMargins() *metrics.Margins {
	if d.spec.LeaseTTL <= 0 {
		return nil
	}
	return metrics.NewMargins()
}

// acquiredMargin records the validity lease had left at done, its acquire
// having been called at called, and returns the lease's expiry as its
// acquisition sets it (zero without margins).
func (c *client) acquiredMargin(lease variants.Lease, called, done time.Time) time.Time {
	if c.margins == nil {
		return time.Time{}
	}
	sent := called
	if c.lastBusy.After(sent) {
		sent = c.lastBusy
	}
	expiry := sent.Add(c.d.spec.LeaseTTL)
	if v, ok := lease.(variants.Validity); ok {
		expiry = v.ValidUntil()
	} else if r, ok := lease.(variants.Renewed); ok {
		// rueidislock tells when it sent the acquisition that holds.
		if at := r.RenewedAt(); !at.IsZero() && at.After(sent) {
			expiry = at.Add(c.d.spec.LeaseTTL)
		}
	}
	c.tally.ValidityLeft(expiry.Sub(done))
	return expiry
}

// expiryNow is the lease's expiry now: the acquisition's, or a TTL after
// its latest renewal. ok is false when it cannot be told (a lease renewed
// without saying when).
func (c *client) expiryNow(lease variants.Lease, acquired time.Time) (expiry time.Time, ok bool) {
	r, renewed := lease.(variants.Renewed)
	if !renewed {
		return acquired, !c.d.spec.Renews
	}
	if at := r.RenewedAt(); !at.IsZero() && at.Add(c.d.spec.LeaseTTL).After(acquired) {
		return at.Add(c.d.spec.LeaseTTL), true
	}
	return acquired, true
}

// exitedMargin records a critical section left at exited, its lease lost
// (and the holder told so by Lost) when lost is set.
func (c *client) exitedMargin(lease variants.Lease, acquired, exited time.Time, lost bool) {
	if c.margins == nil {
		return
	}
	expiry, ok := c.expiryNow(lease, acquired)
	if !ok {
		return
	}
	c.tally.Exited(exited.Sub(expiry))
	if lost {
		c.tally.Noticed(exited.Sub(expiry))
	}
}
