package conform

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// The defaults of Options.
const (
	DefaultAcquireTimeout = 2 * time.Second
	DefaultInFlight       = 64
)

// exitGrace is how long a driver may take to exit after its stdin
// closed: the protocol's 2 s, and a little for a loaded machine.
const exitGrace = 2500 * time.Millisecond

// Options configure a run of the suite. The zero value of each optional
// field selects the default its doc states.
type Options struct {
	// Driver is the driver checked. Required.
	Driver driver.Manifest
	// AcquireTimeout is the drivers' acquire timeout: how long the checks
	// that wait on a held lock wait. Default DefaultAcquireTimeout.
	AcquireTimeout time.Duration
	// InFlight is how many clients send at once in the in-flight check,
	// each on a key of its own. Default DefaultInFlight.
	InFlight int
	// RedisServer is the redis-server binary. Default: from PATH.
	RedisServer string
	// Log, when set, receives the driver's stderr. Default: none.
	Log io.Writer
	// OnResult, when set, is told of each check as it ends.
	OnResult func(Result)
}

// Result is one check's verdict.
type Result struct {
	Check  string        `json:"check"`
	Passed bool          `json:"passed"`
	Detail string        `json:"detail"`
	Took   time.Duration `json:"took"`
}

// String is the result in one line: PASS or FAIL, the check, what was
// seen.
func (r Result) String() string {
	verdict := "PASS"
	if !r.Passed {
		verdict = "FAIL"
	}
	return fmt.Sprintf("%s  %-20s %s (%v)", verdict, r.Check, r.Detail, r.Took.Round(time.Millisecond))
}

// Report is a run of the suite.
type Report struct {
	Driver  driver.Info `json:"driver"`
	Results []Result    `json:"results"`
}

// Failed is how many checks failed.
func (r Report) Failed() int {
	n := 0
	for _, res := range r.Results {
		if !res.Passed {
			n++
		}
	}
	return n
}

// Summary says in one line how many checks passed.
func (r Report) Summary() string {
	return fmt.Sprintf("%d of %d checks passed", len(r.Results)-r.Failed(), len(r.Results))
}

// check is one check of the suite: it returns what it saw, or why the
// driver failed it.
type check struct {
	name string
	run  func(ctx context.Context, s *suite) (detail string, err error)
}

// checks are the suite, in order; init comes first and starts the driver.
var checks = []check{
	{"init", checkInit},
	{"round-trip", checkRoundTrip},
	{"exclusion", checkExclusion},
	{"foreign-token", checkForeignToken},
	{"keys-under-prefix", checkPrefix},
	{"timeout", checkTimeout},
	{"in-flight", checkInFlight},
	{"malformed", checkMalformed},
	{"clock", checkClock},
	{"exit-on-stdin-close", checkExit},
}

// Checks are the names of the suite's checks, in order.
func Checks() []string {
	names := make([]string, len(checks))
	for i, c := range checks {
		names[i] = c.name
	}
	return names
}

// Run runs every check against a redis-server of its own.
func Run(ctx context.Context, o Options) (Report, error) {
	if o.AcquireTimeout <= 0 {
		o.AcquireTimeout = DefaultAcquireTimeout
	}
	if o.InFlight <= 0 {
		o.InFlight = DefaultInFlight
	}
	if _, err := o.Driver.Program(); err != nil {
		return Report{}, err
	}
	redis, err := topologies.StartLocal(ctx, topologies.Spec{Name: "local", RedisServer: o.RedisServer})
	if err != nil {
		return Report{}, fmt.Errorf("driver check needs a redis-server of its own: %w", err)
	}
	defer redis.Close()
	s := &suite{o: o, access: redis.Access(), prefix: newPrefix()}
	defer s.close()
	var rep Report
	for _, c := range checks {
		began := time.Now()
		detail, err := c.run(ctx, s)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		res := Result{Check: c.name, Passed: err == nil, Detail: detail, Took: time.Since(began)}
		if err != nil {
			res.Detail = err.Error()
		}
		if c.name == "init" {
			rep.Driver = s.info
		}
		rep.Results = append(rep.Results, res)
		if o.OnResult != nil {
			o.OnResult(res)
		}
	}
	return rep, nil
}

// newPrefix is the suite's key prefix: lockbench:check-<6 hex digits>:.
func newPrefix() string {
	var b [3]byte
	_, _ = crand.Read(b[:])
	return "lockbench:check-" + hex.EncodeToString(b[:]) + ":"
}

// suite is the state the checks share: the server, the driver process
// while it serves, what its init_ok said.
type suite struct {
	o      Options
	access topologies.Access
	prefix string
	proc   *driver.Process
	info   driver.Info
	// broken says why no driver can be started (init failed): every later
	// check fails with it.
	broken error
}

// config is a driver process's configuration: the suite's server and
// prefix, a 10 s TTL, a fixed 10 ms retry and the suite's acquire timeout.
func (s *suite) config() driver.Config {
	return driver.Config{
		Redis: driver.RedisOf(s.access), Prefix: s.prefix, Clients: s.o.InFlight + 2, TTL: 10 * time.Second,
		Retry:          variants.RetryPolicy{Kind: variants.RetryFixed, Min: 10 * time.Millisecond, Max: 10 * time.Millisecond},
		AcquireTimeout: s.o.AcquireTimeout, Margin: 10 * time.Second, InitTimeout: 30 * time.Second,
		Grace: exitGrace, Log: s.o.Log,
	}
}

// process is the driver process, a new one when there is none or the
// last one failed (broke the protocol, exited).
func (s *suite) process(ctx context.Context) (*driver.Process, error) {
	if s.broken != nil {
		return nil, fmt.Errorf("not checked: %w", s.broken)
	}
	if s.proc != nil && s.proc.Err() == nil {
		return s.proc, nil
	}
	s.close()
	p, err := driver.Start(ctx, s.o.Driver, s.config())
	if err != nil {
		return nil, err
	}
	s.proc = p
	return p, nil
}

func (s *suite) close() {
	if s.proc != nil {
		_ = s.proc.Close()
		s.proc = nil
	}
}

// key is the key of the lock called name under the suite's prefix.
func (s *suite) key(name string) string { return s.prefix + "conform:" + name }

// capabilities lists c's true capabilities.
func capabilities(info driver.Info) string {
	c := info.Capabilities
	var on []string
	for _, f := range []struct {
		on   bool
		name string
	}{{c.Extend, "extend"}, {c.Renewal, "renewal"}, {c.Fencing, "fencing"}, {c.Semaphore, "semaphore"}, {c.Blocking, "blocking"}, {c.Interrupt, "interrupt"}} {
		if f.on {
			on = append(on, f.name)
		}
	}
	if len(on) == 0 {
		on = []string{"none"}
	}
	return strings.Join(on, ", ")
}
