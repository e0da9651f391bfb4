package variants

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors a variant reports. Compare them with errors.Is.
var (
	// ErrBusy: the lock (or every permit of a semaphore) is held by others.
	ErrBusy = errors.New("variants: lock busy")
	// ErrTimeout: a blocking acquire gave up after the acquire timeout.
	ErrTimeout = errors.New("variants: acquire timed out")
	// ErrLeaseLost: a release or renewal found that the lease was no longer ours.
	ErrLeaseLost = errors.New("variants: lease lost")
	// ErrUnknown: no variant is registered under that name.
	ErrUnknown = errors.New("unknown variant")
	// ErrDefinite marks an error after which the operation certainly did
	// not take effect (a lock driver's definite error, package driver): a
	// history records such an acquire as failed, where another error
	// leaves it unknown.
	ErrDefinite = errors.New("variants: definite error (it did not take effect)")
)

// Lock is one client's handle on a lock design. A Lock is made per simulated
// client and is not shared between them; its leases may be released from
// any goroutine.
type Lock interface {
	// Acquire blocks until the lock called name is held, ctx ends (it then
	// returns ctx.Err()), or the retry policy gives up (ErrTimeout, or
	// ErrBusy for a policy that does not wait).
	Acquire(ctx context.Context, name string) (Lease, error)
}

// A Lock that holds resources of its own (a client, a subscription, a
// goroutine) also implements io.Closer; the workload closes it when the
// cell ends.

// Lease is one holding of a lock.
type Lease interface {
	// Release gives the lock up. It returns ErrLeaseLost when the variant can
	// tell that the lock was no longer held by this lease.
	Release(ctx context.Context) error
	// Token is the lease's fencing token, 0 where the variant has none.
	Token() uint64
	// Lost is closed when the variant learns that the lease is gone (a
	// failed renewal). It is nil for variants that cannot know.
	Lost() <-chan struct{}
}

// Clock tells a variant the time. Clients with skewed or jumping clocks get
// their own Clock.
type Clock interface {
	Now() time.Time
}

// SystemClock is the machine's clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Config is what a variant is built from. The zero value of each optional
// field selects the default its doc states.
type Config struct {
	// Conn is the connection to Redis. Required.
	Conn Conn
	// Conns are the connections to N independent masters, for Redlock.
	// Default: Conn alone.
	Conns []Conn
	// Prefix starts every key the variant creates, for example
	// "lockbench:<run-id>:". Required: keys outside it are never touched.
	Prefix string
	// TTL is the lease time of variants that expire. Default DefaultTTL;
	// a variant with Info.OwnTTL (one wrapping a lock library) keeps the
	// library's own lease time instead, and sees TTL zero.
	TTL time.Duration
	// Retry is the policy of a blocking acquire. Default: the variant's own
	// (Info.DefaultRetry); it stays zero for a variant that keeps its
	// library's own retry (DefaultRetry "").
	Retry RetryPolicy
	// AcquireTimeout bounds one blocking acquire. Default
	// DefaultAcquireTimeout.
	AcquireTimeout time.Duration
	// Limit is the number of holders a semaphore admits. Default 1.
	Limit int
	// Clock is the client's clock. Default SystemClock.
	Clock Clock
	// OnAttempt, when set, is called after every try at acquiring with that
	// try's outcome: nil (acquired), ErrBusy, or another error.
	OnAttempt func(err error)
	// AtStep, when set, is called at each named step of the variant (see
	// Info.Steps); an error it returns aborts the operation with that error.
	// Default: nothing happens at steps.
	AtStep func(ctx context.Context, step string) error
	// Note, when set, counts a happening the variant reports under a name
	// of its own (e.g. "unacked" for an acquisition replicas did not
	// acknowledge); the record keeps the counts per cell. Default: not
	// counted.
	Note func(name string)
	// WaitStrict makes wait-replicas release and retry an acquisition that
	// too few replicas acknowledged. Default false: it is only counted.
	WaitStrict bool
}

// The defaults of Config.
const (
	DefaultTTL            = 10 * time.Second
	DefaultAcquireTimeout = 10 * time.Second
)

// The named steps of the variants, for Config.AtStep.
const (
	StepAfterSetNX          = "after-setnx"          // setnx-expire: between SETNX and PEXPIRE
	StepBetweenGetAndExec   = "between-get-and-exec" // simple, setnx-expire: release, after GET matched, before MULTI/DEL/EXEC
	StepBetweenGetAndDel    = "between-get-and-del"  // get-del: release, after GET matched, before DEL
	StepBeforeRenewal       = "before-renewal"       // watchdog, sem-fair, sem-locked: before each renewal
	StepBetweenTransactions = "between-transactions" // sem-fair, sem-locked: after INCR, before ZADD and ZRANK
	StepGuardHeld           = "guard-held"           // sem-locked: guard lock held, before the fair acquire
)

// withDefaults returns c with its defaults filled in for the variant info.
func (c Config) withDefaults(info Info) (Config, error) {
	if c.Conn == nil {
		return c, errors.New("variants: config has no connection")
	}
	if len(c.Conns) == 0 {
		c.Conns = []Conn{c.Conn}
	}
	if c.Prefix == "" {
		return c, errors.New("variants: config has no key prefix")
	}
	if c.TTL <= 0 {
		c.TTL = 0
		if !info.OwnTTL {
			c.TTL = DefaultTTL
		}
	}
	if c.Retry.IsZero() && info.DefaultRetry != "" {
		r, err := ParseRetry(info.DefaultRetry)
		if err != nil {
			return c, fmt.Errorf("variants: %s default retry: %w", info.Name, err)
		}
		c.Retry = r
	}
	if c.AcquireTimeout <= 0 {
		c.AcquireTimeout = DefaultAcquireTimeout
	}
	if c.Limit <= 0 {
		c.Limit = 1
	}
	if c.Clock == nil {
		c.Clock = SystemClock{}
	}
	if c.OnAttempt == nil {
		c.OnAttempt = func(error) {}
	}
	if c.Note == nil {
		c.Note = func(string) {}
	}
	return c, nil
}
