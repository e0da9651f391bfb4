package variants

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"
)

// base is the state every lock of one client shares: its config, a random
// source for tokens and jitter, and the blocking-acquire loop.
//
// It also keeps what spares the acquire and release of the single-key
// locks their allocations (each safe for concurrent use, as a lease may
// be released from another goroutine): the TTL argument formatted once,
// the last key built from a name, a buffer for a command's arguments, and
// a lease done with, which the next acquire makes again.
type base struct {
	cfg Config
	rnd *rand.Rand
	ttl string // cfg.TTL in milliseconds, at least 1

	lastKey atomic.Pointer[namedKey]
	argv    atomic.Pointer[argvBuffer] // nil while in use
	spare   atomic.Pointer[tokenLease] // a lease done with, nil for none
}

// namedKey is the key of the lock called name.
type namedKey struct{ name, key string }

// argvBuffer holds the arguments of one command of the single-key locks.
type argvBuffer [8]string

func newBase(cfg Config) base {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // never fails on supported platforms
	return base{
		cfg: cfg,
		rnd: rand.New(rand.NewChaCha8(seed)),
		ttl: strconv.FormatInt(max(cfg.TTL.Milliseconds(), 1), 10),
	}
}

// step runs the AtStep hook, if any, at the named step.
func (b *base) step(ctx context.Context, name string) error {
	if b.cfg.AtStep == nil {
		return nil
	}
	return b.cfg.AtStep(ctx, name)
}

// key is the Redis key of the lock called name. A client that takes the
// same lock again and again (the closed loop's key per client) gets the
// key it was given last time.
func (b *base) key(name string) string {
	if k := b.lastKey.Load(); k != nil && k.name == name {
		return k.key
	}
	k := &namedKey{name: name, key: b.cfg.Prefix + name}
	b.lastKey.Store(k)
	return k.key
}

// token returns a new random 128-bit token in hex.
func (b *base) token() string {
	var t [32]byte
	b.randomToken(&t)
	return string(t[:])
}

// randomToken writes a new random 128-bit token into dst, in hex.
func (b *base) randomToken(dst *[32]byte) {
	var raw [16]byte
	binary.LittleEndian.PutUint64(raw[:8], b.rnd.Uint64())
	binary.LittleEndian.PutUint64(raw[8:], b.rnd.Uint64())
	hex.Encode(dst[:], raw[:])
}

// ttlMillis is the TTL as the argument of PX or PEXPIRE.
func (b *base) ttlMillis() string { return b.ttl }

// takeArgv returns the lock's argument buffer, or a new one while another
// command of the lock's uses it; putArgv gives it back, emptied, once the
// command returned (Conn keeps no command).
func (b *base) takeArgv() *argvBuffer {
	if buf := b.argv.Swap(nil); buf != nil {
		return buf
	}
	return new(argvBuffer)
}

func (b *base) putArgv(buf *argvBuffer) {
	clear(buf[:])
	b.argv.Store(buf)
}

// doKey sends name key args..., a command whose only key is its first
// argument, as Cmd builds it, with its arguments in the lock's buffer.
func (b *base) doKey(ctx context.Context, name, key string, args ...string) (any, error) {
	buf := b.takeArgv()
	argv := append(append(buf[:0], name, key), args...)
	reply, err := b.cfg.Conn.Do(ctx, Command{Argv: argv, Keys: firstKey})
	b.putArgv(buf)
	return reply, err
}

// acquire runs try until it acquires, fails with an error other than
// ErrBusy, ctx ends, or the retry policy gives up. The acquire timeout is
// measured on the machine's clock, not the client's (which may be skewed).
func (b *base) acquire(ctx context.Context, try func(context.Context) (Lease, error)) (Lease, error) {
	start := monotonic()
	var timer *time.Timer
	for attempt := 0; ; attempt++ {
		lease, err := try(ctx)
		if ctx.Err() != nil {
			if lease != nil {
				_ = lease.Release(context.WithoutCancel(ctx))
			}
			return nil, ctx.Err()
		}
		b.cfg.OnAttempt(err)
		if !errors.Is(err, ErrBusy) {
			return lease, err
		}
		if b.cfg.Retry.Kind == RetryNone {
			return nil, err
		}
		wait := b.cfg.AcquireTimeout - (monotonic() - start)
		if wait <= 0 {
			return nil, ErrTimeout
		}
		wait = min(wait, b.cfg.Retry.Delay(attempt, b.rnd))
		if wait <= 0 {
			continue // spin
		}
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// monotonicEpoch is the origin of monotonic.
var monotonicEpoch = time.Now()

// monotonic reads the machine's monotonic clock alone, as the time since
// monotonicEpoch: about half the cost of time.Now, which reads the wall
// clock too (a timeout needs only the monotonic one).
func monotonic() time.Duration { return time.Since(monotonicEpoch) }

// lease is the lease of the single-key locks: a key, the token stored in it,
// and how to release it.
type lease struct {
	key, token string
	release    func(ctx context.Context, key, token string) error
}

func (l *lease) Release(ctx context.Context) error { return l.release(ctx, l.key, l.token) }
func (l *lease) Token() uint64                     { return 0 }
func (l *lease) Lost() <-chan struct{}             { return nil }

// tokenLease is a lease with its token's 32 hex digits, in one
// allocation, which its lock makes again for a later acquire once the
// lease is done with (see Release and setNX).
type tokenLease struct {
	lease
	owner *base
	hex   [32]byte
}

// Release releases the lease and, once Redis answered the release (it
// released, or found the lease lost), hands the lease back to its lock:
// no command that carries its token is left in flight, and the caller
// holds a released lease, which it must not use again.
func (t *tokenLease) Release(ctx context.Context) error {
	err := t.lease.Release(ctx)
	if err == nil || errors.Is(err, ErrLeaseLost) {
		t.owner.spare.Store(t)
	}
	return err
}

// newLease returns a lease of key with a new random 128-bit token, as
// token makes them: the lock's spare lease, made again, or a new one. The
// token's string is the lease's own bytes, written here and only here
// again once the lease is spare.
func (b *base) newLease(key string, release func(context.Context, string, string) error) *tokenLease {
	t := b.spare.Swap(nil)
	if t == nil {
		t = &tokenLease{owner: b}
	}
	t.lease = lease{key: key, release: release}
	b.randomToken(&t.hex)
	t.token = unsafe.String(&t.hex[0], len(t.hex))
	return t
}

// setNX tries SET key token NX PX ttl: the one-command acquire of the
// expiring locks. release must be a function made once per lock, not a
// method value made per call (which allocates). A lease whose SET Redis
// refused is spare at once; one whose SET failed is left to the garbage
// collector, as the command may still be on its way.
func (b *base) setNX(ctx context.Context, key string, release func(context.Context, string, string) error) (Lease, error) {
	l := b.newLease(key, release)
	reply, err := b.doKey(ctx, "SET", key, l.token, "NX", "PX", b.ttl)
	if err != nil {
		return nil, err
	}
	if reply == nil {
		b.spare.Store(l)
		return nil, ErrBusy
	}
	return l, nil
}
