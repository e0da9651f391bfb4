package calibrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/lockbench/lockbench/variants"
)

// BareRelease is how a bare cycle releases its key.
type BareRelease int

const (
	// BareDel releases with DEL key, as set-nx-ex does.
	BareDel BareRelease = iota
	// BareCompareAndDelete releases with lua-release's compare-and-delete,
	// sent through the library's own script support (EVALSHA, then EVAL
	// on NOSCRIPT).
	BareCompareAndDelete
)

// ErrBareCycle: a bare cycle met a reply an uncontended cycle never gets
// (its SET found the key taken, its release deleted nothing).
var ErrBareCycle = errors.New("calibrate: bare cycle")

// bareCompareAndDelete is the script of variants/lua/compare_del.lua.
const bareCompareAndDelete = `if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`

// BareSpec is the load of a bare loop: the uncontended lock cycle (SET
// key token NX PX ttl, then the release), a key per client, sent by the
// client library's own calls with no lockbench in the way.
type BareSpec struct {
	// Clients is how many goroutines run cycles, each on a key of its
	// own. Default 1.
	Clients int
	// Prefix starts every key: client i's is Prefix + i. Default
	// "lockbench:bare:".
	Prefix string
	// TTL is the SET's PX. Default 10s.
	TTL time.Duration
	// Release is how a cycle releases. Default BareDel.
	Release BareRelease
	// Ops, when above zero, ends the loop after that many cycles in all,
	// every one measured (Warmup and Duration are then ignored). Default
	// 0: by Duration.
	Ops int64
	// Warmup runs cycles before the measured phase, uncounted. Default 0.
	Warmup time.Duration
	// Duration is the measured phase, when Ops is zero; it must then be
	// positive.
	Duration time.Duration
}

// BareOutcome is what a bare loop did in its measured phase.
type BareOutcome struct {
	// Cycles is how many cycles ended in the measured phase.
	Cycles int64
	// Elapsed is how long the measured phase lasted.
	Elapsed time.Duration
	// WarmupCycles is how many cycles ended in the warm-up.
	WarmupCycles int64
}

// PerSecond is the measured phase's cycles per second; zero when it
// lasted no time.
func (o BareOutcome) PerSecond() float64 {
	if o.Elapsed <= 0 {
		return 0
	}
	return float64(o.Cycles) / o.Elapsed.Seconds()
}

// bareCycle runs one cycle on key with token.
type bareCycle func(ctx context.Context, key, token string) error

// BareLoop runs the bare cycle of spec on the library under conn (a
// rueidis or go-redis connection of package clients), which is what
// lockbench's closed loop costs the same library without the variant,
// the workload, the oracle and the recorders: the reference its overhead
// is measured against. Every goroutine ends the cycle it is in before
// the loop returns, so no key is left set; ctx's end stops the loop at
// once and returns ctx's error.
func BareLoop(ctx context.Context, conn variants.Conn, spec BareSpec) (BareOutcome, error) {
	spec = spec.withDefaults()
	if spec.Ops <= 0 && spec.Duration <= 0 {
		return BareOutcome{}, fmt.Errorf("calibrate: bare loop: a duration or a number of cycles is needed")
	}
	cycle, err := newBareCycle(variants.Unwrap(conn), spec)
	if err != nil {
		return BareOutcome{}, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var (
		cycles atomic.Int64 // ended so far
		stop   atomic.Bool
		left   atomic.Int64 // with Ops: cycles not yet begun
	)
	left.Store(spec.Ops)
	next := func() bool {
		if spec.Ops > 0 {
			return left.Add(-1) >= 0
		}
		return !stop.Load() && ctx.Err() == nil
	}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range spec.Clients {
		key, token := spec.Prefix+strconv.Itoa(i), bareToken(i)
		wg.Go(func() {
			for next() {
				if err := cycle(ctx, key, token); err != nil {
					cancel(fmt.Errorf("calibrate: bare loop, key %s: %w", key, err))
					return
				}
				cycles.Add(1)
			}
		})
	}
	var out BareOutcome
	if spec.Ops > 0 {
		wg.Wait()
		out = BareOutcome{Cycles: cycles.Load(), Elapsed: time.Since(start)}
	} else {
		from, at := bareMeasure(ctx, spec.Warmup, spec.Duration, &cycles)
		stop.Store(true)
		wg.Wait()
		// The cycles in flight when Duration ended count too, over the
		// time they took to end.
		out = BareOutcome{Cycles: cycles.Load() - from, Elapsed: time.Since(at), WarmupCycles: from}
	}
	if err := context.Cause(ctx); err != nil {
		return BareOutcome{}, err
	}
	return out, nil
}

// bareMeasure waits out warmup, then duration, and returns the count of cycles
// and the time at the measured phase's start; it returns early when ctx
// ends.
func bareMeasure(ctx context.Context, warmup, duration time.Duration, cycles *atomic.Int64) (int64, time.Time) {
	wait := func(d time.Duration) {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	if warmup > 0 {
		wait(warmup)
	}
	from, at := cycles.Load(), time.Now()
	wait(duration)
	return from, at
}

func (s BareSpec) withDefaults() BareSpec {
	if s.Clients <= 0 {
		s.Clients = 1
	}
	if s.Prefix == "" {
		s.Prefix = "lockbench:bare:"
	}
	if s.TTL <= 0 {
		s.TTL = 10 * time.Second
	}
	return s
}

// bareToken is client i's token: 32 hex digits, as long as a variant's.
func bareToken(i int) string { return fmt.Sprintf("%032x", i+1) }

// newBareCycle is the cycle of spec in conn's own library.
func newBareCycle(conn variants.Conn, spec BareSpec) (bareCycle, error) {
	switch native := conn.(type) {
	case variants.RueidisNative:
		client, _ := native.Rueidis()
		if client == nil {
			return nil, errors.New("calibrate: bare loop needs a rueidis client, not a dedicated connection")
		}
		return rueidisCycle(client, spec), nil
	case variants.GoRedisNative:
		client := native.GoRedis()
		if client == nil {
			return nil, errors.New("calibrate: bare loop needs a go-redis client, not a dedicated connection")
		}
		return goRedisCycle(client, spec), nil
	}
	return nil, fmt.Errorf("calibrate: bare loop: %T hands out no client library of its own", conn)
}

func rueidisCycle(client rueidis.Client, spec BareSpec) bareCycle {
	ttl := spec.TTL.Milliseconds()
	script := rueidis.NewLuaScript(bareCompareAndDelete)
	release := func(ctx context.Context, key, token string) (int64, error) {
		if spec.Release == BareCompareAndDelete {
			return script.Exec(ctx, client, []string{key}, []string{token}).AsInt64()
		}
		return client.Do(ctx, client.B().Del().Key(key).Build()).AsInt64()
	}
	return func(ctx context.Context, key, token string) error {
		err := client.Do(ctx, client.B().Set().Key(key).Value(token).Nx().PxMilliseconds(ttl).Build()).Error()
		if rueidis.IsRedisNil(err) {
			return fmt.Errorf("%w: SET NX found the key taken", ErrBareCycle)
		}
		if err != nil {
			return err
		}
		return released(release(ctx, key, token))
	}
}

func goRedisCycle(client redis.UniversalClient, spec BareSpec) bareCycle {
	args := redis.SetArgs{Mode: "NX", TTL: spec.TTL}
	script := redis.NewScript(bareCompareAndDelete)
	release := func(ctx context.Context, key, token string) (int64, error) {
		if spec.Release == BareCompareAndDelete {
			return script.Run(ctx, client, []string{key}, token).Int64()
		}
		return client.Del(ctx, key).Result()
	}
	return func(ctx context.Context, key, token string) error {
		err := client.SetArgs(ctx, key, token, args).Err()
		if errors.Is(err, redis.Nil) {
			return fmt.Errorf("%w: SET NX found the key taken", ErrBareCycle)
		}
		if err != nil {
			return err
		}
		return released(release(ctx, key, token))
	}
}

// released checks a release's reply: one key deleted.
func released(n int64, err error) error {
	if err == nil && n != 1 {
		return fmt.Errorf("%w: the release deleted %d keys", ErrBareCycle, n)
	}
	return err
}
