package plan

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// Overrides are the settings the user gave, each beside its run flag. A
// pointer or list left nil was not given: the scenario's setting holds,
// else the default (defaults.go). A given one replaces the scenario's, a
// list as a whole. The settings no scenario has (the last group) are not
// given when zero.
type Overrides struct {
	Variants []string // --variants
	Clients  []int    // --clients: one cell per count
	// Topology says where Redis is (--topology, --target, --cluster,
	// --sentinel, with the TLS and password flags). Default local.
	Topology       *topologies.Spec
	Keys           *int           // --keys
	Hold           *string        // --hold: a duration or distribution (workloads.ParseDistribution)
	Think          *string        // --think: as Hold
	Duration       *time.Duration // --duration
	Warmup         *time.Duration // --warmup
	TTL            *time.Duration // --ttl
	AcquireTimeout *time.Duration // --acquire-timeout
	Retry          *string        // --retry (variants.ParseRetry)
	Limit          *int           // --limit
	Repeat         *int           // --repeat
	ClockSkew      *string        // --clock-skew (workloads.ParseSkew)
	ClockJumps     []string       // --clock-jump, each as workloads.ParseJump
	Faults         []string       // --fault, each as faults.Parse
	ClientGroups   []string       // --client-groups: a,b splits the clients into clients-a and clients-b
	Fence          *string        // --fence: count or reject

	Client           string // --client; default DefaultClient
	Ops              int64  // --ops: stop each cell after this many acquisitions
	Rate             string // --rate (workloads.ParseRate): an open loop
	Stages           string // --stages (workloads.ParseStages): an open loop; replaces the duration
	Pacing           string // --pacing: workloads.PacingSleep or PacingSpin; an open loop
	WaitStrict       bool   // --wait-strict
	AllowDestructive bool   // --allow-destructive
	// Drivers name driver commands, NAME=CMD (--driver), beside the
	// manifests under DriversDir (default driver.DefaultDir()).
	Drivers    []string
	DriversDir string
	// Progress is told of a driver's library installed on first use
	// (drv:NAME@VERSION); nil: not told.
	Progress    io.Writer
	DriverProcs *int // --driver-procs; default DefaultDriverProcs
	// InterruptRelease is --interrupt-release (Plan.InterruptRelease).
	InterruptRelease *bool
	// Servers are the server binaries of the local topology, each cell
	// run on each (--server, --servers): redis, valkey or a binary's path
	// (topologies.ServerBinary). Default none: redis-server from PATH.
	Servers []string
	// ServersFlag names the flag that gave Servers, for its errors.
	// Default --servers.
	ServersFlag string
	// NodeCPU holds each data node of a local topology to that share of
	// a core (--node-cpu; the topology's cpu parameter). nil: the
	// topology's own, none by default.
	NodeCPU *float64
	// KeyDist is how lock names are picked (--key-dist:
	// workloads.ParseKeyDist); "" uniform.
	KeyDist string
}

// A SettingError is a bad setting given to Build, named by its run flag
// and, when the value is a scenario's own, by the scenario.
type SettingError struct {
	Scenario string // the scenario's Ref when the value is its own, else ""
	Flag     string // the setting's run flag, e.g. "--ttl"
	Err      error
}

func (e *SettingError) Error() string {
	if e.Scenario != "" {
		return fmt.Sprintf("--scenario %s: %s: %v", e.Scenario, e.Flag, e.Err)
	}
	return e.Flag + ": " + e.Err.Error()
}

// Unwrap returns ErrInvalid and the cause.
func (e *SettingError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

// Build turns the scenario s (nil for none) and the overrides o into a
// checked plan with every default filled in. Its errors are
// *SettingError.
func Build(s *Scenario, o Overrides) (Plan, error) {
	b := &builder{origin: map[string]origin{}}
	if s != nil {
		b.scenario = s.Ref()
	} else {
		s = &Scenario{}
	}
	p := Plan{
		Variants:         pickList(b, "--variants", o.Variants, s.Variants, DefaultVariants),
		Clients:          pickList(b, "--clients", o.Clients, s.Clients, DefaultClients),
		Client:           cmp.Or(o.Client, DefaultClient),
		Topology:         b.topology(o.Topology, s.Topology),
		Workload:         b.workload(s, o),
		TTL:              b.duration("--ttl", o.TTL, s.TTL, 0),
		AcquireTimeout:   b.duration("--acquire-timeout", o.AcquireTimeout, s.AcquireTimeout, DefaultAcquireTimeout),
		Retry:            b.retry(pick(b, "--retry", o.Retry, s.Retry, "")),
		Limit:            pick(b, "--limit", o.Limit, s.Limit, DefaultLimit),
		Faults:           b.faults(pickList(b, "--fault", o.Faults, withoutEmpty(s.Faults), nil)),
		ClientGroups:     pickList(b, "--client-groups", o.ClientGroups, withoutEmpty(s.ClientGroups), nil),
		Scenario:         b.scenario,
		Repeat:           pick(b, "--repeat", o.Repeat, s.Repeat, DefaultRepeat),
		Fence:            pick(b, "--fence", o.Fence, s.Fence, DefaultFence),
		WaitStrict:       o.WaitStrict,
		AllowDestructive: o.AllowDestructive,
		DriverProcs:      pick(b, "--driver-procs", o.DriverProcs, s.DriverProcs, 0), // 0: DefaultDriverProcs
		InterruptRelease: pick(b, "--interrupt-release", o.InterruptRelease, s.InterruptRelease, false),
	}
	p.Servers = b.servers(o.Servers, cmp.Or(o.ServersFlag, "--servers"), &p.Topology, o.Topology != nil || s.Topology != "")
	p.Topology = b.nodeCPU(p.Topology, o.NodeCPU)
	b.check(p)
	p.Drivers = b.drivers(p, o)
	if b.err != nil {
		return Plan{}, b.err
	}
	if err := p.Validate(); err != nil {
		b.fail(validateFlag(err), "%w", err)
		return Plan{}, b.err
	}
	return p, nil
}

// builder keeps the first bad setting of Build, and where each setting
// came from: an error of the scenario's own value names the scenario.
type builder struct {
	scenario string
	origin   map[string]origin // by flag; absent: the default
	err      error
}

// origin is where a setting came from.
type origin int

const (
	byDefault origin = iota
	byOverride
	byScenario
)

// set records where the flag's setting came from.
func (b *builder) set(flag string, given, inScenario bool) {
	switch {
	case given:
		b.origin[flag] = byOverride
	case inScenario:
		b.origin[flag] = byScenario
	}
}

func (b *builder) fail(flag, format string, args ...any) {
	if b.err != nil {
		return
	}
	e := &SettingError{Flag: flag, Err: fmt.Errorf(format, args...)}
	if b.origin[flag] == byScenario {
		e.Scenario = b.scenario
	}
	b.err = e
}

// failOn records err, if any, as the flag's.
func (b *builder) failOn(flag string, err error) {
	if err != nil {
		b.fail(flag, "%w", err)
	}
}

// pick returns the given value, else the scenario's unless zero, else def.
func pick[T comparable](b *builder, flag string, given *T, scenario, def T) T {
	var zero T
	b.set(flag, given != nil, scenario != zero)
	switch {
	case given != nil:
		return *given
	case scenario != zero:
		return scenario
	}
	return def
}

// pickList is pick for a list: the given one (even empty), else the
// scenario's unless empty, else def; a copy.
func pickList[T any](b *builder, flag string, given, scenario, def []T) []T {
	b.set(flag, given != nil, len(scenario) > 0)
	switch {
	case given != nil:
		return slices.Clone(given)
	case len(scenario) > 0:
		return slices.Clone(scenario)
	}
	return slices.Clone(def)
}

// duration is pick for a duration, which a scenario gives as text.
func (b *builder) duration(flag string, given *time.Duration, scenario string, def time.Duration) time.Duration {
	b.set(flag, given != nil, scenario != "")
	switch {
	case given != nil:
		return *given
	case scenario == "":
		return def
	}
	d, err := time.ParseDuration(scenario)
	if err != nil {
		b.fail(flag, "%q is not a duration such as 10s or 500ms", scenario)
	}
	return d
}

func (b *builder) topology(given *topologies.Spec, scenario string) topologies.Spec {
	var spec topologies.Spec
	flag := "--topology"
	switch {
	case given != nil:
		spec = *given
		switch {
		case len(spec.Cluster) > 0:
			flag = "--cluster"
		case len(spec.Sentinels) > 0:
			flag = "--sentinel"
		case len(spec.Targets) > 0:
			flag = "--target"
		}
	case scenario != "":
		spec.Name = scenario
	}
	b.set(flag, given != nil, scenario != "")
	resolved, _, err := spec.Resolve()
	b.failOn(flag, err)
	return resolved
}

func (b *builder) workload(s *Scenario, o Overrides) workloads.Spec {
	w := workloads.Spec{
		Keys:   pick(b, "--keys", o.Keys, s.Keys, DefaultKeys),
		Hold:   b.distribution("--hold", pick(b, "--hold", o.Hold, s.Hold, DefaultHold)),
		Think:  b.distribution("--think", pick(b, "--think", o.Think, s.Think, DefaultThink)),
		Ops:    o.Ops,
		Warmup: b.duration("--warmup", o.Warmup, s.Warmup, DefaultWarmup),
	}
	duration := DefaultDuration
	if o.Ops > 0 {
		duration = 0 // until the ops are done
	}
	w.Duration = b.duration("--duration", o.Duration, s.Duration, duration)
	w.KeyDist = b.keyDist(o.KeyDist)
	var err error
	if o.Rate != "" {
		w.Rate, w.Arrivals, err = workloads.ParseRate(o.Rate)
		b.failOn("--rate", err)
	}
	if o.Stages != "" {
		w.Stages, err = workloads.ParseStages(o.Stages)
		b.failOn("--stages", err)
		if o.Duration != nil {
			b.fail("--duration", "--stages set the measured time (their total); give one or the other")
		}
		w.Duration = workloads.StagesDuration(w.Stages)
	}
	switch o.Pacing {
	case "", workloads.PacingSleep, workloads.PacingSpin:
		w.Pacing = o.Pacing
	default:
		b.fail("--pacing", "%q is not a pacing (%s or %s)", o.Pacing, workloads.PacingSleep, workloads.PacingSpin)
	}
	if w.Pacing != "" && !w.Open() {
		b.fail("--pacing", "paces an open loop: give --rate or --stages with it")
	}
	w.Clocks.Skew, err = workloads.ParseSkew(pick(b, "--clock-skew", o.ClockSkew, s.ClockSkew, DefaultClockSkew))
	b.failOn("--clock-skew", err)
	for _, text := range pickList(b, "--clock-jump", o.ClockJumps, withoutEmpty(s.ClockJumps), nil) {
		jump, err := workloads.ParseJump(text)
		b.failOn("--clock-jump", err)
		w.Clocks.Jumps = append(w.Clocks.Jumps, jump)
	}
	return w
}

func (b *builder) distribution(flag, text string) workloads.Distribution {
	d, err := workloads.ParseDistribution(text)
	b.failOn(flag, err)
	return d
}

func (b *builder) retry(text string) variants.RetryPolicy {
	if text == "" {
		return variants.RetryPolicy{} // each variant's own
	}
	r, err := variants.ParseRetry(text)
	b.failOn("--retry", err)
	return r
}

func (b *builder) faults(specs []string) []faults.Fault {
	var schedule []faults.Fault
	for _, spec := range specs {
		f, err := faults.Parse(spec)
		b.failOn("--fault", err)
		schedule = append(schedule, f)
	}
	return schedule
}

// check checks each setting of p on its own, as its flag accepts it.
func (b *builder) check(p Plan) {
	if len(p.Variants) == 0 {
		b.fail("--variants", "give at least one (known: %s)", strings.Join(variants.Names(), ", "))
	}
	for _, v := range p.Variants {
		if _, ok := DriverName(v); ok {
			continue // found by drivers
		}
		_, err := variants.Lookup(v)
		b.failOn("--variants", err)
	}
	if p.DriverProcs < 0 && p.DriverProcs != AutoDriverProcs || b.origin["--driver-procs"] == byOverride && p.DriverProcs < 1 && p.DriverProcs != AutoDriverProcs {
		b.fail("--driver-procs", "must be at least 1, or auto (got %d)", p.DriverProcs)
	}
	if p.InterruptRelease && !slices.ContainsFunc(p.Variants, func(v string) bool { _, ok := DriverName(v); return ok }) {
		b.fail("--interrupt-release", "interrupts a driver's releasing thread: give a drv:NAME variant")
	}
	if len(p.Clients) == 0 {
		b.fail("--clients", "give at least one count")
	}
	for _, n := range p.Clients {
		if n < 1 {
			b.fail("--clients", "each count must be at least 1 (got %d)", n)
		}
	}
	b.failOn("--client", clients.Check(p.Client))
	w := p.Workload
	if w.Keys < 1 {
		b.fail("--keys", "must be at least 1 (got %d)", w.Keys)
	}
	for _, d := range []struct {
		flag     string
		v        time.Duration
		positive bool
	}{
		{"--duration", w.Duration, w.Ops == 0},
		{"--warmup", w.Warmup, false},
		{"--ttl", p.TTL, b.origin["--ttl"] != byDefault}, // zero by default: each variant's own
		{"--acquire-timeout", p.AcquireTimeout, true},
	} {
		if d.v < 0 || (d.positive && d.v == 0) {
			b.fail(d.flag, "must be a positive duration such as 10s or 500ms (got %v)", d.v)
		}
	}
	if w.Ops < 0 {
		b.fail("--ops", "must be 0 (run by --duration) or more (got %d)", w.Ops)
	}
	if w.Open() && w.Ops > 0 {
		b.fail("--ops", "an open loop (--rate, --stages) runs for a time, not a number of ops; drop --ops")
	}
	if p.Limit < 1 {
		b.fail("--limit", "must be at least 1 (got %d)", p.Limit)
	}
	if p.Repeat < 1 {
		b.fail("--repeat", "must be at least 1 (got %d)", p.Repeat)
	}
}

// validateFlag names the flag of an error of Validate.
func validateFlag(err error) string {
	switch {
	case errors.Is(err, ErrNeedsSemaphore):
		return "--limit"
	case errors.Is(err, faults.ErrBadFault):
		return "--fault"
	case errors.Is(err, ErrClient):
		return "--client"
	case errors.Is(err, ErrFence):
		return "--fence"
	case errors.Is(err, ErrClientGroups):
		return "--client-groups"
	}
	return "--variants"
}

// withoutEmpty drops the empty entries of a scenario's list.
func withoutEmpty(list []string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == "" })
}
