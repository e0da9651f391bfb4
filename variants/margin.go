package variants

import "time"

// This file tells a workload what it needs to measure how close a lease
// came to expiring (its margins): the lease time a built variant uses, and
// the optional interfaces a lease may implement to say more than its
// acquire's timing tells.

// Validity is a lease that computes its own validity, as Redlock does: the
// TTL less the time the acquisition took and an allowance for clock drift.
// ValidUntil is when the lock stops being safe to rely on. Implemented by
// redlock's and redsync's leases.
type Validity interface {
	ValidUntil() time.Time
}

// Renewed is a lease renewed in the background (a watchdog). RenewedAt is
// when the latest renewal that succeeded was sent (for rueidislock, or its
// acquisition), zero when there is none to tell; the lease expires a TTL
// after it unless renewed again. Implemented by watchdog's, the renewing
// semaphores' and rueidislock's leases.
type Renewed interface {
	RenewedAt() time.Time
}

// ownTTLs are the lease times of the variants that keep their library's
// own (Info.OwnTTL) when the run sets none.
var ownTTLs = map[string]time.Duration{
	"redsync":     redsyncExpiry,
	"redislock":   DefaultTTL, // redislock has none; the variant uses lockbench's
	"rueidislock": rueidislockValidity,
}

// LeaseTTL is the lease time the named variant uses with ttl (a run's
// --ttl, 0 for none given): ttl when given, else the variant's own
// default (DefaultTTL, or its library's for one with Info.OwnTTL). It is 0
// for a variant whose leases do not expire (Claims.TTL false) or that is
// not registered.
func LeaseTTL(name string, ttl time.Duration) time.Duration {
	info, err := Lookup(name)
	switch {
	case err != nil || !info.Claims.TTL:
		return 0
	case ttl > 0:
		return ttl
	case info.OwnTTL:
		return ownTTLs[name]
	}
	return DefaultTTL
}
