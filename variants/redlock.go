package variants

import (
	"context"
	"time"
)

func init() {
	Register(Info{
		Name:   "redlock",
		Kind:   KindLock,
		Source: "【Redis应用】分布式锁 §1.7 引入Redlock算法; Distributed Locks with Redis (redis.io): The Redlock Algorithm",
		Summary: "SET key token NX PX ttl sent concurrently to N independent masters, each with a short timeout; " +
			"held with a majority and a positive validity (ttl − elapsed − drift); else released everywhere and " +
			"retried after a random delay. Release and extend on all nodes",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, SurvivesFailover: true},
		DefaultRetry: "random:1ms-10ms",
		Shapes:       []Shape{ShapeSingle, ShapeCluster, ShapeIndependent},

		ClientMemoryKiB: map[string]int64{LibRueidis: 8, LibGoRedis: 32},
		MemoryPerNode:   true,
	}, func(cfg Config) (Lock, error) { return &redlock{base: newBase(cfg)}, nil })
}

// redlock is the Redlock algorithm over cfg.Conns (one connection per
// independent master; on other topologies, the one Redis, where it is
// lua-release with a validity check). The per-node timeout is small next to
// the TTL (TTL/100, between 5 and 50 ms: the Redis page's 5–50 ms for a 10 s
// TTL, the article's 50 ms in §1.7), and an operation returns as soon as a
// majority has answered, so a dead minority costs little; the clock drift
// allowance is TTL × 1% + 2 ms. The random retry delay keeps clients from
// splitting the votes again and again; neither text gives a figure, and
// 1–10 ms keeps it comparable with the other variants' 1 ms pause.
type redlock struct{ base }

var _ OptionsAcquirer = (*redlock)(nil)

func (r *redlock) quorum() int { return len(r.cfg.Conns)/2 + 1 }

func (r *redlock) nodeTimeout() time.Duration {
	return min(max(r.cfg.TTL/100, 5*time.Millisecond), 50*time.Millisecond)
}

// releaseTimeout bounds a release or an extension on one node. It is
// longer than the acquire's: nothing waits on it past the majority, and a
// release that gives up on a slow but live node leaves a fragment of the
// lock there until the TTL, which with only a bare majority alive blocks
// the lock for everyone.
func (r *redlock) releaseTimeout() time.Duration {
	return min(max(r.cfg.TTL/10, r.nodeTimeout()), time.Second)
}

func (r *redlock) Acquire(ctx context.Context, name string) (Lease, error) {
	return r.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire; opts.Renewals is told of each Refresh.
func (r *redlock) AcquireWith(ctx context.Context, name string, opts AcquireOptions) (Lease, error) {
	return r.acquire(ctx, func(ctx context.Context) (Lease, error) {
		l := &redlockLease{r: r, key: r.key(name), token: r.token(), obs: opts.Renewals}
		began := time.Now()
		acked, wait := r.onAll(ctx, r.nodeTimeout(), func(ctx context.Context, conn Conn) bool {
			reply, err := conn.Do(ctx, Cmd("SET", l.key, l.token, "NX", "PX", r.ttlMillis()))
			return err == nil && reply != nil
		})
		drift := r.cfg.TTL/100 + 2*time.Millisecond
		validity := r.cfg.TTL - time.Since(began) - drift
		if acked >= r.quorum() && validity > 0 {
			l.validUntil = began.Add(validity)
			return l, nil
		}
		// Release everywhere, also on the nodes that seemed to fail (the
		// SET may have landed after their timeout), once every SET is done
		// so that none lands after its release.
		wait()
		_ = l.Release(context.WithoutCancel(ctx))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, ErrBusy
	})
}

// onAll runs op on every node at once, each bounded by timeout,
// and returns how many succeeded as soon as a quorum has: a slow or dead
// minority does not slow the majority down. The ops still running go on,
// detached from ctx's cancellation, so every node is still sent its
// command; wait blocks until they are all done.
func (r *redlock) onAll(ctx context.Context, timeout time.Duration, op func(context.Context, Conn) bool) (ok int, wait func()) {
	ctx = context.WithoutCancel(ctx)
	results := make(chan bool, len(r.cfg.Conns))
	for _, conn := range r.cfg.Conns {
		go func() {
			nctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			results <- op(nctx, conn)
		}()
	}
	left := len(r.cfg.Conns)
	for ; left > 0 && ok < r.quorum(); left-- {
		if <-results {
			ok++
		}
	}
	return ok, func() {
		for ; left > 0; left-- {
			<-results
		}
	}
}

// redlockLease is a Redlock holding: the key and token on the majority of
// nodes, valid until validUntil unless extended.
type redlockLease struct {
	r          *redlock
	key, token string
	validUntil time.Time
	obs        RenewalObserver // told of each Refresh; nil: nobody
}

var (
	_ Refresher = (*redlockLease)(nil)
	_ Validity  = (*redlockLease)(nil)
)

func (l *redlockLease) Token() uint64         { return 0 }
func (l *redlockLease) Lost() <-chan struct{} { return nil }

// ValidUntil is when the lock stops being safe to rely on.
func (l *redlockLease) ValidUntil() time.Time { return l.validUntil }

// Release deletes the key on every node where it still holds the token;
// ErrLeaseLost when fewer than a majority still held it.
func (l *redlockLease) Release(ctx context.Context) error {
	deleted, _ := l.r.onAll(ctx, l.r.releaseTimeout(), func(ctx context.Context, conn Conn) bool {
		n, err := compareDel.Run(ctx, conn, []string{l.key}, l.token)
		return err == nil && n == int64(1)
	})
	if deleted < l.r.quorum() {
		return ErrLeaseLost
	}
	return nil
}

// Refresh extends the lock on every node where it still holds the token
// and renews its validity; ErrLeaseLost without a majority.
func (l *redlockLease) Refresh(ctx context.Context) error { return observed(ctx, l.obs, l.refresh) }

func (l *redlockLease) refresh(ctx context.Context) error {
	began := time.Now()
	extended, _ := l.r.onAll(ctx, l.r.releaseTimeout(), func(ctx context.Context, conn Conn) bool {
		n, err := comparePExpire.Run(ctx, conn, []string{l.key}, l.token, l.r.ttlMillis())
		return err == nil && n == int64(1)
	})
	validity := l.r.cfg.TTL - time.Since(began) - (l.r.cfg.TTL/100 + 2*time.Millisecond)
	if extended < l.r.quorum() || validity <= 0 {
		return ErrLeaseLost
	}
	l.validUntil = began.Add(validity)
	return nil
}
