package variants_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// A renewing lease tells when its latest renewal was sent: the watchdog's
// (every TTL/3) and rueidislock's, whose acquisition it tells too (every
// validity/2, watched in the scripts its Locker sends). Renewals move it
// on while the lease is held, never past now, and the TTL after it is
// always ahead of now.
func TestRenewedAt(t *testing.T) {
	const ttl = 150 * time.Millisecond
	for _, variant := range []string{"watchdog", "rueidislock", "sem-fair"} {
		t.Run(variant, func(t *testing.T) {
			forVariant(t, variant, func(t *testing.T, h *harness) {
				before := time.Now()
				lease := h.acquire(t, h.lock(t, variants.Config{TTL: ttl, Limit: 2}), "res")
				r, ok := lease.(variants.Renewed)
				if !ok {
					t.Fatalf("%T does not tell when it was renewed", lease)
				}
				first := r.RenewedAt()
				if variant == "rueidislock" && (first.Before(before.Add(-time.Millisecond)) || first.After(time.Now())) {
					t.Errorf("rueidislock's acquisition sent at %v, want between %v and now", first, before)
				}
				var renewals int
				for deadline := time.Now().Add(4 * ttl); time.Now().Before(deadline); time.Sleep(ttl / 10) {
					at, now := r.RenewedAt(), time.Now()
					if at.IsZero() {
						continue // the watchdog before its first renewal
					}
					if at.After(now) || !at.Add(ttl).After(now) {
						t.Fatalf("renewed at %v, now %v: the lease would have expired (TTL %v)", at, now, ttl)
					}
					if at.After(first) {
						renewals++
						first = at
					}
				}
				if renewals < 2 {
					t.Errorf("%d renewals seen in %v of a %v TTL; want at least 2", renewals, 4*ttl, ttl)
				}
			})
		})
	}
}

// LeaseTTL is the run's TTL when given, else the variant's own; 0 for
// locks that do not expire.
func TestLeaseTTL(t *testing.T) {
	for _, tc := range []struct {
		variant string
		ttl     time.Duration
		want    time.Duration
	}{
		{"lua-release", 0, variants.DefaultTTL}, {"lua-release", time.Second, time.Second},
		{"redsync", 0, 8 * time.Second}, {"redislock", 0, variants.DefaultTTL}, {"rueidislock", 0, 5 * time.Second},
		{"rueidislock", 300 * time.Millisecond, 300 * time.Millisecond},
		{"simple", time.Second, 0}, {"none", 0, 0}, {"no-such-variant", time.Second, 0},
	} {
		if got := variants.LeaseTTL(tc.variant, tc.ttl); got != tc.want {
			t.Errorf("LeaseTTL(%s, %v) = %v, want %v", tc.variant, tc.ttl, got, tc.want)
		}
	}
	for _, info := range variants.All() {
		if info.OwnTTL && variants.LeaseTTL(info.Name, 0) == 0 {
			t.Errorf("%s keeps its library's lease time, which LeaseTTL does not know", info.Name)
		}
	}
}
