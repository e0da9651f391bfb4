package variants

import (
	"context"
	"strconv"
	"time"
)

// Extender is a lease whose time left can be set by hand: Extend makes
// the lock expire ttl from now when it is still held by the lease, with
// the Lua compare-and-PEXPIRE of watchdog, and returns ErrLeaseLost when
// it is not. Implemented by the leases of lua-release and the other
// single-key locks whose acquire is SET key token NX PX (set-nx-ex,
// get-del); the reference driver drivers/go-lua serves the protocol's
// extend with it.
type Extender interface {
	Extend(ctx context.Context, ttl time.Duration) error
}

var _ Extender = (*tokenLease)(nil)

// Extend sets the lease's time left to ttl (at least 1 ms) if the key
// still holds its token.
func (t *tokenLease) Extend(ctx context.Context, ttl time.Duration) error {
	ms := strconv.FormatInt(max(ttl.Milliseconds(), 1), 10)
	n, err := comparePExpire.Run(ctx, t.owner.cfg.Conn, []string{t.key}, t.token, ms)
	if err != nil {
		return err
	}
	if n != int64(1) {
		return ErrLeaseLost
	}
	return nil
}
