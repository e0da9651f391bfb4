package variants

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Kind says what a variant is.
type Kind string

// The kinds of variant.
const (
	KindLock      Kind = "lock"
	KindSemaphore Kind = "semaphore"
	KindControl   Kind = "control" // no mutual exclusion at all: the oracle's negative control
)

// Claims are what a variant promises. The oracle checks them; nothing here
// trusts them.
type Claims struct {
	// TTL: a crashed holder's lock expires by itself.
	TTL bool `json:"ttl"`
	// OwnerCheckedRelease: release deletes the lock only when it is still ours.
	OwnerCheckedRelease bool `json:"owner_checked_release"`
	// AtomicRelease: that check and the delete are one atomic step.
	AtomicRelease bool `json:"atomic_release"`
	// Renewal: the lease is extended while it is held.
	Renewal bool `json:"renewal"`
	// Fencing: leases carry strictly increasing tokens.
	Fencing bool `json:"fencing"`
	// SurvivesFailover: the lock holds when a master fails over.
	SurvivesFailover bool `json:"survives_failover"`
}

// String lists the claims that hold, for tables.
func (c Claims) String() string {
	var s []string
	for _, f := range []struct {
		on   bool
		name string
	}{
		{c.TTL, "ttl"}, {c.OwnerCheckedRelease, "owner-check"}, {c.AtomicRelease, "atomic-release"},
		{c.Renewal, "renewal"}, {c.Fencing, "fencing"}, {c.SurvivesFailover, "failover"},
	} {
		if f.on {
			s = append(s, f.name)
		}
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// Info describes a registered variant.
type Info struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Source is where the design comes from: a published text with its
	// section (book, article, paper, documentation page) or a library.
	Source string `json:"source"`
	// Summary says in one line how it acquires and releases.
	Summary string `json:"summary"`
	Claims  Claims `json:"claims"`
	// DefaultRetry is the retry policy used when the run sets none, in
	// ParseRetry's syntax. "" for a variant that wraps a lock library:
	// the library's own retry is kept (Config.Retry stays zero).
	DefaultRetry string `json:"default_retry"`
	// OwnTTL says that the variant chooses its lease time when the run
	// sets none: a lock library's own (for redislock, which has none,
	// DefaultTTL). Config.TTL then stays zero.
	OwnTTL bool `json:"own_ttl,omitempty"`
	// Steps are the named points inside the variant's operations where
	// Config.AtStep is called.
	Steps []Step `json:"steps,omitempty"`
	// Shapes are the shapes of Redis the variant runs on. Default: single
	// and cluster.
	Shapes []Shape `json:"shapes,omitempty"`
	// Clients are the client libraries (LibRueidis, LibGoRedis) the
	// variant runs on. Default: all.
	Clients []string `json:"clients,omitempty"`
	// Settings, when set, says in one line which lease time and retry a
	// built variant uses (its library's defaults or the run's), for the
	// record. cfg has its defaults filled.
	Settings func(cfg Config) string `json:"-"`
	// ClientMemoryKiB is the memory one client of the variant takes, in
	// KiB, by client library: what a plan's largest cell is checked
	// against before it starts (see DefaultClientMemoryKiB for how the
	// figures were measured). Default DefaultClientMemoryKiB, for each
	// library it does not name.
	ClientMemoryKiB map[string]int64 `json:"-"`
	// MemoryPerNode says that ClientMemoryKiB is per node the variant
	// takes a lock on (Redlock's connections to each master).
	MemoryPerNode bool `json:"-"`
}

// DefaultClientMemoryKiB is the memory a client of most variants takes, in
// KiB, by client library.
//
// The memory a client costs, from the peak RSS (VmHWM) of a run of one
// cell of 10,000 clients (--duration 3s, on local; redlock on
// local:redlock, 5 nodes) less that of one client, per variant and
// library, rounded up. Measured on lockbench's own
// machine: most variants take 7-18 KiB a client on rueidis and 27-41 on
// go-redis; notify and wait-replicas 52 on rueidis; rueidislock, which
// opens a client library of its own per client, 392; redlock 6 (rueidis)
// and 24 (go-redis) per node a client. The figures registered keep about
// twice that as a margin. (A peak of 394 MiB once seen under make test was
// the test binary's own: wait4's Maxrss of a child is never below its
// parent's peak on Linux; VmHWM read while the run runs, with the suites
// beside it, stays at 200-234 MiB.) Since rueidis' rings hold a
// command of every client (clients.Options.Callers: 2^14 slots of about
// 344 bytes on each pipelining connection at 10,000 clients, about 11 MB
// on 2 cores, twice that from 4) and go-redis' ordinary commands share
// 256 connections a node, lua-release at 10,000 clients for 10 s (1,000
// keys, 9 runs on the loaded 2 cores) peaked at 189-217 MiB on rueidis
// and 236-259 MiB on go-redis, 16-19 and 21-23 KiB a client over one
// client's 34-35 MiB: inside these figures.
var DefaultClientMemoryKiB = map[string]int64{LibRueidis: 40, LibGoRedis: 64}

// ClientKiB is the memory one client of the variant takes with the client
// library lib on nodes nodes (counted only when MemoryPerNode), in KiB.
func (i Info) ClientKiB(lib string, nodes int) int64 {
	kib, ok := i.ClientMemoryKiB[lib]
	if !ok {
		kib = DefaultClientMemoryKiB[lib]
	}
	if i.MemoryPerNode {
		kib *= int64(max(nodes, 1))
	}
	return kib
}

// The client libraries, as the clients package and --client name them.
const (
	LibRueidis = "rueidis"
	LibGoRedis = "go-redis"
)

// RunsOn reports whether the variant runs on the client library lib.
func (i Info) RunsOn(lib string) bool {
	return len(i.Clients) == 0 || slices.Contains(i.Clients, lib)
}

// Shape is a shape of Redis (the topology's mode).
type Shape string

// The shapes.
const (
	ShapeSingle      Shape = "single"      // one logical Redis: a node, or a master with replicas
	ShapeCluster     Shape = "cluster"     // a Redis Cluster
	ShapeIndependent Shape = "independent" // N independent masters (Config.Conns)
)

// Supports reports whether the variant runs on shape.
func (i Info) Supports(shape Shape) bool {
	if len(i.Shapes) == 0 {
		return shape == ShapeSingle || shape == ShapeCluster
	}
	return slices.Contains(i.Shapes, shape)
}

// Step names a point inside a variant's operation, so that a fault can
// delay or stop a client exactly there.
type Step struct {
	Name string `json:"name"`
	When string `json:"when"`
}

// Factory builds one client's Lock from a config whose defaults are filled.
type Factory func(Config) (Lock, error)

type entry struct {
	info    Info
	factory Factory
}

var (
	registryMu sync.RWMutex
	registry   = map[string]entry{}
)

// Register makes a variant available by info.Name. It panics when the name
// is empty, already registered, or the factory is nil; variants call it from
// init.
func Register(info Info, factory Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if info.Name == "" || factory == nil {
		panic("variants: Register with an empty name or nil factory")
	}
	if _, dup := registry[info.Name]; dup {
		panic("variants: Register called twice for " + info.Name)
	}
	// A variant keeping its library's own retry ("") must say in Settings
	// which one it used.
	if _, err := ParseRetry(info.DefaultRetry); err != nil && (info.DefaultRetry != "" || info.Settings == nil) {
		panic(fmt.Sprintf("variants: %s: bad default retry: %v", info.Name, err))
	}
	registry[info.Name] = entry{info, factory}
}

// Names returns the registered variant names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// All returns the info of every registered variant, sorted by name.
func All() []Info {
	var infos []Info
	for _, n := range Names() {
		info, _ := Lookup(n)
		infos = append(infos, info)
	}
	return infos
}

// Lookup returns a variant's info, or an error that lists the known names.
func Lookup(name string) (Info, error) {
	registryMu.RLock()
	e, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return Info{}, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return e.info, nil
}

// New builds one client's Lock of the named variant.
func New(name string, cfg Config) (Lock, error) {
	registryMu.RLock()
	e, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		_, err := Lookup(name)
		return nil, err
	}
	cfg, err := cfg.withDefaults(e.info)
	if err != nil {
		return nil, err
	}
	return e.factory(cfg)
}

// Settings describes, for the record, the lease time and retry the named
// variant uses with cfg; "" for variants that say nothing beyond the
// run's configuration.
func Settings(name string, cfg Config) string {
	registryMu.RLock()
	e, ok := registry[name]
	registryMu.RUnlock()
	if !ok || e.info.Settings == nil {
		return ""
	}
	if filled, err := cfg.withDefaults(e.info); err == nil {
		cfg = filled
	}
	return e.info.Settings(cfg)
}
