package runner

import (
	"context"
	"sync"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/variants"
)

// This file tells the margins (workloads/margins.go) when a renewing
// driver's lease expires: a library that renews by itself (capability
// renewal, sesame-redlock's using()) may say so in renewed notices, each
// with the validity the renewal left; the lease then expires that validity
// after lockbench read the notice. Without notices the lease's expiry
// cannot be told after its acquisition's: the cell's margins then keep
// only the validity left at acquire (workloads.Spec.Renews).

// renewals are the expiries the renewed notices of a cell's drivers told,
// per lease.
type renewals struct {
	ttl time.Duration // the cell's lease time
	m   sync.Map      // renewalKey -> time.Time
}

type renewalKey struct {
	client int
	token  string
}

// notice is the driver processes' Config.OnNotice: it keeps the expiry a
// renewed notice tells. It does not block.
func (r *renewals) notice(n driver.Notice) {
	if n.Type == wire.TypeRenewed && n.Validity > 0 {
		r.m.Store(renewalKey{n.Client, n.Token}, n.At.Add(n.Validity))
	}
}

// renews reports whether the cell's driver renews its leases by itself.
func (dc *driverCell) renews() bool { return dc.procs[0].p.Info().Capabilities.Renewal }

// renewingLease is a renewing driver's lease as the margins read it: its
// validity at acquire (variants.Validity, when the driver said it) and its
// latest renewal (variants.Renewed).
type renewingLease struct {
	variants.Lease
	key renewalKey
	r   *renewals
}

// renewingValidLease is a renewingLease whose driver said its validity at
// acquire.
type renewingValidLease struct {
	renewingLease
	validUntil time.Time
}

var (
	_ variants.Renewed  = renewingLease{}
	_ variants.Validity = renewingValidLease{}
)

// renewing wraps the lease a renewing driver's client acquired.
func (r *renewals) renewing(lease variants.Lease) variants.Lease {
	dl, ok := lease.(interface{ Lease() *driver.Lease })
	if !ok {
		return lease
	}
	l := dl.Lease()
	rl := renewingLease{Lease: lease, key: renewalKey{l.Client, l.Token}, r: r}
	if v, ok := lease.(variants.Validity); ok {
		return renewingValidLease{rl, v.ValidUntil()}
	}
	return rl
}

// ValidUntil is the lease's expiry at its acquisition, as the driver said.
func (l renewingValidLease) ValidUntil() time.Time { return l.validUntil }

// RenewedAt is a TTL before the expiry the latest renewed notice told,
// so that the margins' expiry (RenewedAt + TTL) is that one; zero before
// any.
func (l renewingLease) RenewedAt() time.Time {
	if at, ok := l.r.m.Load(l.key); ok {
		return at.(time.Time).Add(-l.r.ttl)
	}
	return time.Time{}
}

// Release releases the lease and forgets its renewals.
func (l renewingLease) Release(ctx context.Context) error {
	defer l.r.m.Delete(l.key)
	return l.Lease.Release(ctx)
}
