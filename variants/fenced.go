package variants

import (
	"context"
	_ "embed"
	"fmt"
)

//go:embed lua/fenced_acquire.lua
var fencedAcquireLua string

var fencedAcquire = NewScript(fencedAcquireLua)

func init() {
	Register(Info{
		Name:   "fenced",
		Kind:   KindLock,
		Source: `Kleppmann, "How to do distributed locking" (2016): Making the lock safe with fencing`,
		Summary: "lua-release whose acquire is one Lua script: SET key token NX PX ttl and, when it succeeds, " +
			"INCR of the lock's fence counter, returned as a strictly increasing fencing token. Release: Lua compare-and-delete",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, Fencing: true},
		DefaultRetry: "fixed:1ms",
	}, func(cfg Config) (Lock, error) { return &fencedLock{base: newBase(cfg)}, nil })
}

// fencedLock is lua-release with fencing tokens: each acquisition of a lock
// name gets the next value of a counter kept beside the lock, so a holder
// paused past its TTL carries an older token than whoever held the lock
// after it, and a resource that checks tokens can refuse its late write.
// The lock itself is no safer than lua-release; the protection is in the
// resource (the oracle's fence check, --fence).
//
// The lock key and its counter, {name} and {name}:fence under the prefix,
// share a hash tag, so in a Redis Cluster the script's two keys are in one
// slot. The counter has no expiry and is never deleted by a release:
// deleting it would restart the tokens below those already handed out. The
// runner removes it with the run's keys. Tokens increase on one Redis; a
// failover to a replica that missed the last INCRs could hand out a token
// again, so the variant does not claim to survive failover.
type fencedLock struct{ base }

var _ Lock = (*fencedLock)(nil)

func (l *fencedLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		key, token := l.fencedKey(name), l.token()
		reply, err := fencedAcquire.Run(ctx, l.cfg.Conn, []string{key, key + ":fence"}, token, l.ttlMillis())
		if err != nil {
			return nil, err
		}
		if reply == nil {
			return nil, ErrBusy
		}
		fence, ok := reply.(int64)
		if !ok || fence <= 0 {
			// The lock is ours but the token is unusable: give it back.
			_ = l.compareAndDelete(context.WithoutCancel(ctx), key, token)
			return nil, fmt.Errorf("variants: fenced acquire replied %v", reply)
		}
		return &fencedLease{lease: lease{key: key, token: token, release: l.compareAndDelete}, fence: uint64(fence)}, nil
	})
}

// fencedKey is the key of the lock called name, in braces so that its
// fence counter can share its hash slot.
func (b *base) fencedKey(name string) string { return b.cfg.Prefix + "{" + name + "}" }

// fencedLease is a lease with its fencing token.
type fencedLease struct {
	lease
	fence uint64
}

func (f *fencedLease) Token() uint64 { return f.fence }
