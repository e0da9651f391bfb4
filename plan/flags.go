package plan

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/variants"
)

// Flags are the command-line flags of a plan's settings, which run and
// sweep share: Register defines them on a flag set with the defaults of
// defaults.go, and Overrides returns the settings of those given. Where
// Redis is (the topology flags) and what is printed are the commands'.
type Flags struct {
	variants       []string
	clients        []int
	client         string
	keys           int
	hold, think    string
	duration       time.Duration
	ops            int64
	warmup         time.Duration
	ttl            time.Duration
	retry          string
	acquireTimeout time.Duration
	limit          int
	rate           string
	stages         string
	pacing         string
	clockSkew      string
	clockJumps     []string
	faults         []string
	clientGroups   []string
	repeat         int
	fence          string
	waitStrict     bool
	destructive    bool
	drivers        []string
	driverProcs    int
	interrupt      bool
	servers        []string // --server and --servers alike
	nodeCPU        float64
	keyDist        string
}

// Register defines the flags on fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.variants, "variants", DefaultVariants, "comma-separated `NAMES` of the variants to run (see lockbench variants); drv:NAME runs the lock driver NAME")
	fs.StringArrayVar(&f.drivers, "driver", nil, "name a lock driver's command, `NAME=CMD` (repeatable), for --variants drv:NAME; others are found by their manifests (drivers/*/driver.json)")
	f.driverProcs = DefaultDriverProcs
	fs.Var((*ProcsValue)(&f.driverProcs), "driver-procs", "spread a driver cell's clients over `N` driver processes, client i on process i mod N; auto: one per core for a Python driver (its GIL), one otherwise")
	fs.BoolVar(&f.interrupt, "interrupt-release", false, "release each driver lease on an interrupted thread (a JVM's Thread.interrupt; drivers with the interrupt capability)")
	fs.IntSliceVar(&f.clients, "clients", DefaultClients, "concurrent clients; a comma list `N,...` runs each count")
	fs.StringVar(&f.client, "client", DefaultClient, "client `LIBRARY`: "+strings.Join(clients.Names, " or "))
	fs.IntVar(&f.keys, "keys", DefaultKeys, "`N` distinct lock names clients pick from uniformly; 1 is maximum contention")
	fs.StringVar(&f.hold, "hold", DefaultHold, "time in the critical section, a duration or distribution `DIST`: 2ms, exp:2ms, uniform:1ms-5ms, normal:10ms,2ms")
	fs.StringVar(&f.think, "think", DefaultThink, "pause after each release, a `DIST` as --hold")
	fs.DurationVar(&f.duration, "duration", DefaultDuration, "measured time per cell (0 with --ops: until the ops are done)")
	fs.Int64Var(&f.ops, "ops", 0, "stop each cell after `N` measured acquisitions (0: by --duration)")
	fs.DurationVar(&f.warmup, "warmup", DefaultWarmup, "warm-up per cell, recorded apart and left out of the table")
	fs.DurationVar(&f.ttl, "ttl", variants.DefaultTTL, "lease time of expiring locks")
	fs.StringVar(&f.retry, "retry", "", "retry `POLICY` of a blocking acquire: none, spin, fixed:10ms, exp:1ms-100ms (default: each variant's own)")
	fs.DurationVar(&f.acquireTimeout, "acquire-timeout", DefaultAcquireTimeout, "give up a blocking acquire after this long")
	fs.StringVar(&f.rate, "rate", "", "open loop: the `RATE` of acquisitions offered per second across all clients (5000, poisson:5000); --clients caps how many are in progress")
	fs.StringVar(&f.stages, "stages", "", "open loop: ramp the rate linearly through `DURATION:RATE,...` (10s:1000,20s:5000,10s:0); replaces --duration")
	fs.StringVar(&f.pacing, "pacing", "", "open loop: how it waits for each arrival, `sleep` (the default: little CPU, arrivals up to 0.5 ms late) or spin (on time, a busy core)")
	fs.StringVar(&f.fence, "fence", DefaultFence, "what the protected resource does with a write whose fencing token is lower than one it has seen, its `MODE`: count (it as stale) or reject (refuse it, Kleppmann's fencing)")
	fs.BoolVar(&f.waitStrict, "wait-strict", false, "wait-replicas: release and retry an acquisition too few replicas acknowledged (default: count it)")
	fs.BoolVar(&f.destructive, "allow-destructive", false, "let a pause fault (with for=) act on a server lockbench did not start, as CLIENT PAUSE, which every client of that server waits out; nothing else is ever allowed there")
	fs.IntVar(&f.limit, "limit", DefaultLimit, "`N` permits of a semaphore (holders admitted at once); 1 for locks")
	fs.StringVar(&f.clockSkew, "clock-skew", DefaultClockSkew, "per-client clock `OFFSET`: a fixed +200ms, or uniform:-500ms..500ms")
	fs.StringArrayVar(&f.faults, "fault", nil, "a `FAULT` beside each cell's measured phase, on a topology lockbench starts: "+
		"'at=5s pause node=master for=3s', kill, 'restart ... delay=1s', 'failover node=replica-1', 'clock node=node-3 jump=+30s', "+
		"'partition sides=master,clients-a|replicas,sentinels,clients-b for=5s', 'reset node=master fraction=0.3 for=1s' (repeatable; see lockbench scenarios)")
	fs.StringSliceVar(&f.clientGroups, "client-groups", nil, "split the clients evenly into named `GROUPS`, each on connections of its own: a,b makes clients-a and clients-b, "+
		"which network faults' sides name: --fault 'at=1s partition sides=master,clients-a|replicas,sentinels,clients-b for=5s'")
	fs.StringArrayVar(&f.clockJumps, "clock-jump", nil, "jump every client clock by `+JUMP@AT`, a point of each cell: +2s@5s (repeatable)")
	fs.StringSliceVar(&f.servers, "server", nil, "start the local topology on this `SERVER`: redis (redis-server), valkey (valkey-server) or a server binary's path (default: redis-server from PATH)")
	fs.StringSliceVar(&f.servers, "servers", nil, "run every cell on each of these `SERVERS`, comma-separated as --server takes them: redis,valkey")
	fs.Float64Var(&f.nodeCPU, "node-cpu", 0, "hold each data node of a local topology to this `SHARE` of one core, in (0, 1], through a cgroup (as its cpu parameter: --topology 'local:cluster?cpu=0.15'), so that Redis, not the machine, is the limit")
	fs.StringVar(&f.keyDist, "key-dist", "uniform", "how each acquisition picks its lock name among --keys, a `DIST`: uniform, zipf:S (Zipf's law of exponent S: a few hot names) or hot:F (a fraction F on one name)")
	fs.IntVar(&f.repeat, "repeat", DefaultRepeat, "run every cell `N` times (interleaved, fresh keys): the table shows medians and spread, the record keeps every repetition")
}

// Overrides are the settings of the flags given (changed says which
// were); the topology is left to the caller.
func (f *Flags) Overrides(changed func(flag string) bool) Overrides {
	ov := Overrides{
		Variants:       givenList(changed, "variants", f.variants),
		Clients:        givenList(changed, "clients", f.clients),
		Keys:           given(changed, "keys", f.keys),
		Hold:           given(changed, "hold", f.hold),
		Think:          given(changed, "think", f.think),
		Duration:       given(changed, "duration", f.duration),
		Warmup:         given(changed, "warmup", f.warmup),
		TTL:            given(changed, "ttl", f.ttl),
		AcquireTimeout: given(changed, "acquire-timeout", f.acquireTimeout),
		Retry:          given(changed, "retry", f.retry),
		Limit:          given(changed, "limit", f.limit),
		Repeat:         given(changed, "repeat", f.repeat),
		ClockSkew:      given(changed, "clock-skew", f.clockSkew),
		ClockJumps:     givenList(changed, "clock-jump", f.clockJumps),
		Faults:         givenList(changed, "fault", f.faults),
		ClientGroups:   givenList(changed, "client-groups", f.clientGroups),
		Fence:          given(changed, "fence", f.fence),

		Ops: f.ops, Rate: f.rate, Stages: f.stages, Pacing: f.pacing, WaitStrict: f.waitStrict, AllowDestructive: f.destructive,
		Drivers: f.drivers, DriverProcs: given(changed, "driver-procs", f.driverProcs), InterruptRelease: given(changed, "interrupt-release", f.interrupt),
		NodeCPU: given(changed, "node-cpu", f.nodeCPU), KeyDist: f.keyDist,
	}
	if changed("client") {
		ov.Client = f.client
	}
	for _, flag := range []string{"server", "servers"} {
		if changed(flag) {
			ov.Servers, ov.ServersFlag = givenList(changed, flag, f.servers), "--"+flag
		}
	}
	return ov
}

// given returns the flag's value when it was given, else nil.
func given[T any](changed func(flag string) bool, flag string, value T) *T {
	if !changed(flag) {
		return nil
	}
	return &value
}

// givenList returns the flag's list when it was given, empty or not, else
// nil.
func givenList[T any](changed func(flag string) bool, flag string, list []T) []T {
	if !changed(flag) {
		return nil
	}
	if list == nil {
		return []T{}
	}
	return list
}
