package variants

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"
)

// base is the state every lock of one client shares: its config, a random
// source for tokens and jitter, and the blocking-acquire loop.
type base struct {
	cfg Config
	rnd *rand.Rand
}

func newBase(cfg Config) base {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // never fails on supported platforms
	return base{cfg: cfg, rnd: rand.New(rand.NewChaCha8(seed))}
}

// step runs the AtStep hook, if any, at the named step.
func (b *base) step(ctx context.Context, name string) error {
	if b.cfg.AtStep == nil {
		return nil
	}
	return b.cfg.AtStep(ctx, name)
}

// key is the Redis key of the lock called name.
func (b *base) key(name string) string { return b.cfg.Prefix + name }

// token returns a new random 128-bit token in hex.
func (b *base) token() string {
	var t [16]byte
	binary.LittleEndian.PutUint64(t[:8], b.rnd.Uint64())
	binary.LittleEndian.PutUint64(t[8:], b.rnd.Uint64())
	return hex.EncodeToString(t[:])
}

// ttlMillis is the TTL as the argument of PX or PEXPIRE.
func (b *base) ttlMillis() string {
	return strconv.FormatInt(max(b.cfg.TTL.Milliseconds(), 1), 10)
}

// acquire runs try until it acquires, fails with an error other than
// ErrBusy, ctx ends, or the retry policy gives up. The acquire timeout is
// measured on the machine's clock, not the client's (which may be skewed).
func (b *base) acquire(ctx context.Context, try func(context.Context) (Lease, error)) (Lease, error) {
	deadline := time.Now().Add(b.cfg.AcquireTimeout)
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
		wait := time.Until(deadline)
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

// lease is the lease of the single-key locks: a key, the token stored in it,
// and how to release it.
type lease struct {
	key, token string
	release    func(ctx context.Context, key, token string) error
}

func (l *lease) Release(ctx context.Context) error { return l.release(ctx, l.key, l.token) }
func (l *lease) Token() uint64                     { return 0 }
func (l *lease) Lost() <-chan struct{}             { return nil }

// setNX tries SET key token NX PX ttl: the one-command acquire of the
// expiring locks.
func (b *base) setNX(ctx context.Context, name string, release func(context.Context, string, string) error) (Lease, error) {
	key, token := b.key(name), b.token()
	reply, err := b.cfg.Conn.Do(ctx, Cmd("SET", key, token, "NX", "PX", b.ttlMillis()))
	if err != nil {
		return nil, err
	}
	if reply == nil {
		return nil, ErrBusy
	}
	return &lease{key: key, token: token, release: release}, nil
}
