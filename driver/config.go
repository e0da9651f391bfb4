package driver

import (
	"fmt"
	"io"
	"time"

	"github.com/lockbench/lockbench/clockshim"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// The defaults of Config.
const (
	DefaultMargin      = 5 * time.Second
	DefaultInitTimeout = 30 * time.Second
	// DefaultGrace is how long Close waits for a driver to exit after its
	// stdin closed (the protocol gives it 2 s) before it sends SIGTERM to
	// its process group; SIGKILL follows killAfter later.
	DefaultGrace = 3 * time.Second
	killAfter    = 2 * time.Second
)

// ClockSlack is how far a driver's clock (Client.ClockOffset) may read
// from the one the clock shim moved it to: half the request's round trip,
// and a millisecond clock.
const ClockSlack = 250 * time.Millisecond

// DriverEnv is set in every driver process's environment (to the driver's
// name), so that a process lockbench started can be told from others
// (scripts/check-leftovers.sh).
const DriverEnv = "LOCKBENCH_DRIVER"

// Config is what a driver process is started with: init's content and
// lockbench's own limits. The zero value of each optional field selects
// the default its doc states.
type Config struct {
	// Redis is where the driver connects (RedisOf builds it from a
	// topology's access). Required.
	Redis wire.Redis
	// Password, when set, is passed in the driver's environment
	// (wire.PasswordEnv), never on its command line, and Redis.Password
	// names that variable. Default: none.
	Password string
	// Prefix starts every key. Required.
	Prefix string
	// Clients is how many clients the process serves (a hint). Default 1.
	Clients int
	// TTL is the lease time. Default 0: the library's own.
	TTL time.Duration
	// Retry is the blocking acquire's retry policy. Default: zero, the
	// library's own.
	Retry variants.RetryPolicy
	// AcquireTimeout bounds one blocking acquire. Default
	// variants.DefaultAcquireTimeout.
	AcquireTimeout time.Duration
	// Limit is a semaphore's permits. Default 1 (a lock).
	Limit int
	// Renew asks for the library's automatic renewal. Default false.
	Renew bool
	// Margin is added to AcquireTimeout to make every request's deadline,
	// after which it fails with ErrNoReply (indefinite). Default
	// DefaultMargin.
	Margin time.Duration
	// InitTimeout bounds the wait for init_ok. Default DefaultInitTimeout.
	InitTimeout time.Duration
	// Grace is how long Close waits for the driver to exit once its stdin
	// is closed. Default DefaultGrace.
	Grace time.Duration
	// OnNotice, when set, is told of every message the driver sends
	// unasked (lease_lost, renewed), on the goroutine that reads the
	// driver's replies: it must not block. Default: none; a lease's own
	// Lost and RenewedAt tell its holder either way.
	OnNotice func(Notice)
	// InterruptRelease asks for every release on an interrupted thread
	// (the release request's interrupt); the driver must have the
	// interrupt capability. Default false.
	InterruptRelease bool
	// Clock, when set, is the clock offset the process runs under: the
	// clock shim preloaded, reading it, so that its wall clock (and every
	// library's time in it) is moved as the offset says (client clock
	// faults). Client.Clock reads the clock back. Default: the machine's
	// clock.
	Clock *clockshim.Offset
	// Log, when set, receives the driver's stderr, a line at a time,
	// each begun with "driver NAME: ". Default: only its last lines are
	// kept, for errors (StderrTail).
	Log io.Writer
}

func (c Config) withDefaults() Config {
	if c.Clients <= 0 {
		c.Clients = 1
	}
	if c.AcquireTimeout <= 0 {
		c.AcquireTimeout = variants.DefaultAcquireTimeout
	}
	if c.Limit <= 0 {
		c.Limit = 1
	}
	if c.Margin <= 0 {
		c.Margin = DefaultMargin
	}
	if c.InitTimeout <= 0 {
		c.InitTimeout = DefaultInitTimeout
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	return c
}

// init is the init request of c.
func (c Config) init() wire.Message {
	redis := c.Redis
	if c.Password != "" {
		redis.Password = &wire.PasswordSource{Env: wire.PasswordEnv}
	}
	return wire.Message{
		Type: wire.TypeInit, Protocol: wire.Version, Redis: &redis, Prefix: c.Prefix, Clients: c.Clients,
		Lock: &wire.LockOptions{
			TTLMs: wire.Millis(c.TTL), Retry: RetryOf(c.Retry), AcquireTimeoutMs: wire.Millis(c.AcquireTimeout),
			Limit: c.Limit, Renew: c.Renew,
		},
	}
}

// RetryOf is a retry policy as the protocol sends it: the zero policy is
// the library's own ("library").
func RetryOf(p variants.RetryPolicy) wire.Retry {
	if p.IsZero() {
		return wire.Retry{Kind: wire.RetryLibrary}
	}
	return wire.Retry{Kind: string(p.Kind), MinMs: wire.Millis(p.Min), MaxMs: wire.Millis(p.Max)}
}

// PolicyOf is the protocol's retry as a variants policy (zero for
// "library"), for drivers written in Go.
func PolicyOf(r wire.Retry) (variants.RetryPolicy, error) {
	min, max := wire.FromMillis(r.MinMs), wire.FromMillis(r.MaxMs)
	switch variants.RetryKind(r.Kind) {
	case variants.RetryNone, variants.RetrySpin:
		return variants.RetryPolicy{Kind: variants.RetryKind(r.Kind)}, nil
	case variants.RetryFixed, variants.RetryExp, variants.RetryRand:
		if min <= 0 || max < min {
			return variants.RetryPolicy{}, fmt.Errorf("%w: %s needs 0 < min_ms <= max_ms, got %v and %v", variants.ErrBadRetry, r.Kind, r.MinMs, r.MaxMs)
		}
		return variants.RetryPolicy{Kind: variants.RetryKind(r.Kind), Min: min, Max: max}, nil
	case wire.RetryLibrary:
		return variants.RetryPolicy{}, nil
	}
	return variants.RetryPolicy{}, fmt.Errorf("%w: unknown kind %q", variants.ErrBadRetry, r.Kind)
}

// RedisOf is where a topology's access sends a driver: its mode and
// addresses, the master name under Sentinel, the first endpoint's user.
// The password goes in Config.Password; TLS settings (files) are the
// caller's to add.
func RedisOf(access topologies.Access) wire.Redis {
	r := wire.Redis{Mode: wire.ModeSingle, MasterName: access.MasterName}
	switch {
	case access.MasterName != "":
		r.Mode = wire.ModeSentinel
	case access.Mode == topologies.ModeCluster:
		r.Mode = wire.ModeCluster
	case access.Mode == topologies.ModeIndependent:
		r.Mode = wire.ModeMasters
	}
	for _, ep := range access.Endpoints {
		r.Addrs = append(r.Addrs, ep.Addr)
	}
	if len(access.Endpoints) > 0 {
		r.Username = access.Endpoints[0].Username
	}
	return r
}
