package variants

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	redsyncrueidis "github.com/go-redsync/redsync/v4/redis/rueidis"
	"github.com/redis/rueidis/rueidiscompat"
)

// redsync's own defaults (v4.18.1, Redsync.NewMutex), restated: the record
// names them, and the delay function that observes the tries draws the
// same pause (redsync offers no way to wrap its own).
const (
	redsyncExpiry   = 8 * time.Second
	redsyncTries    = 32
	redsyncMinDelay = 50  // ms, inclusive
	redsyncMaxDelay = 250 // ms, exclusive
)

func init() {
	Register(Info{
		Name:   "redsync",
		Kind:   KindLock,
		Source: "library github.com/go-redsync/redsync/v4 (v4.18.1), Redlock in Go, through its go-redis v9 and rueidis pools",
		Summary: "redsync's Mutex over one pool per Redis (one on a node or cluster; one per master on independent masters): " +
			"SET NX PX on every pool at once, held with a majority and a positive validity, else released everywhere and tried again; " +
			"release: Lua compare-and-delete on every pool. Its own expiry and retry unless the run sets them; " +
			"each try is reported, one that met a Redis error as busy unless it was the last",
		Claims:   Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true, SurvivesFailover: true},
		Shapes:   []Shape{ShapeSingle, ShapeCluster, ShapeIndependent},
		OwnTTL:   true,
		Settings: redsyncSettings,
	}, newRedsync)
}

func redsyncSettings(cfg Config) string {
	var own, given []string
	if cfg.TTL > 0 {
		given = append(given, fmt.Sprintf("expiry %v (--ttl)", cfg.TTL))
	} else {
		own = append(own, fmt.Sprintf("expiry %v", redsyncExpiry))
	}
	if cfg.Retry.IsZero() {
		own = append(own, fmt.Sprintf("%d tries, retry delay %d-%dms random", redsyncTries, redsyncMinDelay, redsyncMaxDelay))
	} else {
		given = append(given, givenRetry(cfg))
	}
	return settingsLine("redsync", own, given)
}

// redsyncLock is redsync's Mutex, one made per acquire (redsync names a
// mutex by its key). With one pool it is a lock on one Redis; with one
// pool per independent master, Redlock.
type redsyncLock struct {
	base
	rs *redsync.Redsync
}

var _ OptionsAcquirer = (*redsyncLock)(nil)

func newRedsync(cfg Config) (Lock, error) {
	pools := make([]redsyncredis.Pool, 0, len(cfg.Conns))
	for _, conn := range cfg.Conns {
		pool, err := redsyncPool(conn)
		if err != nil {
			return nil, err
		}
		pools = append(pools, pool)
	}
	return &redsyncLock{base: newBase(cfg), rs: redsync.New(pools...)}, nil
}

// redsyncPool is redsync's own pool adapter on conn's client library.
func redsyncPool(conn Conn) (redsyncredis.Pool, error) {
	switch Unwrap(conn).(type) {
	case RueidisNative:
		client, _, err := nativeRueidis("redsync", conn)
		if err != nil {
			return nil, err
		}
		return redsyncrueidis.NewPool(rueidiscompat.NewAdapter(client)), nil
	case GoRedisNative:
		client, err := nativeGoRedis("redsync", conn)
		if err != nil {
			return nil, err
		}
		return redsyncgoredis.NewPool(client), nil
	}
	return nil, fmt.Errorf("variants: redsync needs a %s or %s connection", LibRueidis, LibGoRedis)
}

// Acquire runs redsync's LockContext. redsync calls the delay function
// before every try but the first, so each call reports the try before it
// as busy; the acquire timeout is kept there too, between tries, where
// cancelling cuts no command short (a SET cut short could land and be
// left behind until it expires).
func (l *redsyncLock) Acquire(ctx context.Context, name string) (Lease, error) {
	return l.AcquireWith(ctx, name, AcquireOptions{})
}

// AcquireWith is Acquire; aopts.Renewals is told of each Refresh.
func (l *redsyncLock) AcquireWith(ctx context.Context, name string, aopts AcquireOptions) (Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(l.cfg.AcquireTimeout)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	policy := l.cfg.Retry
	tries := redsyncTries
	switch {
	case policy.IsZero(): // redsync's own
	case policy.Kind == RetryNone:
		tries = 1
	default:
		tries = math.MaxInt32 // until the acquire timeout
	}
	var timedOut bool
	attempt := 0
	delay := func(int) time.Duration {
		l.cfg.OnAttempt(ErrBusy)
		wait := time.Until(deadline)
		if wait <= 0 {
			timedOut = true
			stop()
			return time.Hour // redsync waits for rctx, which has ended
		}
		var d time.Duration
		if policy.IsZero() {
			d = time.Duration(redsyncMinDelay+l.rnd.IntN(redsyncMaxDelay-redsyncMinDelay)) * time.Millisecond
		} else {
			d = policy.Delay(attempt, l.rnd)
		}
		attempt++
		return min(d, wait)
	}
	opts := []redsync.Option{redsync.WithTries(tries), redsync.WithRetryDelayFunc(delay)}
	if l.cfg.TTL > 0 {
		opts = append(opts, redsync.WithExpiry(l.cfg.TTL))
	}
	m := l.rs.NewMutex(l.key(name), opts...)
	err := m.LockContext(rctx)
	switch {
	case err == nil && ctx.Err() != nil:
		_, _ = m.UnlockContext(context.WithoutCancel(ctx))
		return nil, ctx.Err()
	case err == nil:
		l.cfg.OnAttempt(nil)
		return &redsyncLease{m: m, obs: aopts.Renewals}, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case timedOut:
		return nil, ErrTimeout
	}
	// The last try failed: on a Redis error, or on a lock held elsewhere.
	var redisErr *redsync.RedisError
	if errors.As(err, &redisErr) {
		l.cfg.OnAttempt(err)
		return nil, err
	}
	l.cfg.OnAttempt(ErrBusy)
	if tries == 1 {
		return nil, ErrBusy
	}
	return nil, ErrTimeout // the tries ran out
}

// redsyncLease is a held redsync Mutex.
type redsyncLease struct {
	m   *redsync.Mutex
	obs RenewalObserver // told of each Refresh; nil: nobody
}

var (
	_ Refresher = (*redsyncLease)(nil)
	_ Validity  = (*redsyncLease)(nil)
)

func (l *redsyncLease) Token() uint64         { return 0 }
func (l *redsyncLease) Lost() <-chan struct{} { return nil }

// ValidUntil is when the lock stops being safe to rely on (redsync's
// Until).
func (l *redsyncLease) ValidUntil() time.Time { return l.m.Until() }

// Release unlocks on every pool; ErrLeaseLost when fewer than a majority
// still held it and no node failed to answer.
func (l *redsyncLease) Release(ctx context.Context) error {
	ok, err := l.m.UnlockContext(ctx)
	return redsyncOutcome(ok, err)
}

// Refresh extends the lock on every pool (redsync's Extend).
func (l *redsyncLease) Refresh(ctx context.Context) error {
	return observed(ctx, l.obs, func(ctx context.Context) error {
		ok, err := l.m.ExtendContext(ctx)
		return redsyncOutcome(ok, err)
	})
}

func redsyncOutcome(ok bool, err error) error {
	var redisErr *redsync.RedisError
	switch {
	case ok:
		return nil
	case errors.As(err, &redisErr):
		return err
	}
	return ErrLeaseLost
}
