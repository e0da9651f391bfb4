package variants

import "context"

func init() {
	Register(Info{
		Name:   "sem-basic",
		Kind:   KindSemaphore,
		Source: "Redis in Action (Carlson 2013) §6.3.1 Building a basic counting semaphore",
		Summary: "one ZSET scored by the client's clock. Acquire in one MULTI/EXEC: ZREMRANGEBYSCORE timed-out, " +
			"ZADD token now, ZRANK token; rank < limit acquires, else ZREM and fail (busy). Release: ZREM",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true},
		DefaultRetry: "none",
	}, func(cfg Config) (Lock, error) { return &semBasic{base: newBase(cfg)}, nil })
}

// semBasic is the book's basic counting semaphore. It trusts every client's
// clock: a client whose clock is behind scores lower and ranks ahead of
// holders that already have a permit, so it can take a permit that is not
// free. It fails fast when full, as the book (§6.3) says semaphores usually do.
// The TTL is the semaphore's timeout.
type semBasic struct{ base }

var _ OptionsAcquirer = (*semBasic)(nil)

func (s *semBasic) Acquire(ctx context.Context, name string) (Lease, error) {
	return s.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire; opts.Renewals is told of each Refresh by hand
// (sem-basic does not refresh by itself).
func (s *semBasic) AcquireWith(ctx context.Context, name string, opts AcquireOptions) (Lease, error) {
	return s.acquire(ctx, func(ctx context.Context) (Lease, error) {
		keys, token := s.semKeys(name), s.token()
		now, cutoff := s.clockMicros()
		conn := s.cfg.Conn
		replies, err := multiExec(ctx, conn,
			Cmd("ZREMRANGEBYSCORE", keys.timeout, "-inf", cutoff),
			Cmd("ZADD", keys.timeout, now, token),
			Cmd("ZRANK", keys.timeout, token))
		if err != nil {
			return nil, err
		}
		if ok, err := s.ranked(replies[2]); err != nil || ok {
			return &semLease{b: &s.base, keys: keys, token: token, obs: opts.Renewals}, err
		}
		if _, err := conn.Do(ctx, Cmd("ZREM", keys.timeout, token)); err != nil {
			return nil, err
		}
		return nil, ErrBusy
	})
}
