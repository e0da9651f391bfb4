package plan

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// Errors of Validate and Build. Every one wraps ErrInvalid.
var (
	ErrInvalid = errors.New("invalid plan")
	// ErrShape: a variant does not run on the topology's shape.
	ErrShape = errors.New("variant does not run on this topology")
	// ErrNeedsSemaphore: a limit above 1 with a lock variant.
	ErrNeedsSemaphore = errors.New("limit needs a semaphore")
	// ErrFence: an unknown fence mode.
	ErrFence = errors.New("unknown fence mode")
	// ErrClient: a variant does not run on the client library.
	ErrClient = errors.New("variant does not run on this client library")
	// ErrClientGroups: bad client group names, or fewer clients than
	// groups.
	ErrClientGroups = errors.New("bad client groups")
)

// Plan is one run: every variant × every client count, on one topology.
type Plan struct {
	// Variants are run in this order. Required.
	Variants []string `json:"variants"`
	// Clients lists the client counts; each is one cell per variant.
	// Required.
	Clients []int `json:"clients"`
	// Client is the client library: rueidis or go-redis. Default
	// DefaultClient.
	Client string `json:"client"`
	// Topology says where Redis is. Default local (embedded without
	// redis-server).
	Topology topologies.Spec `json:"topology"`
	// Servers are the server binaries the local topology is started on,
	// in this order, each cell run on each: redis (redis-server), valkey
	// (valkey-server) or a binary's path (topologies.ServerBinary).
	// Default none: Topology's own, redis-server from PATH.
	Servers []string `json:"servers,omitempty"`
	// Workload is the load of each cell; its Clients is set per cell.
	Workload workloads.Spec `json:"workload"`
	// TTL is the lease time of expiring locks. Default zero: each
	// variant's own (variants.DefaultTTL; a variant wrapping a lock
	// library keeps the library's, see variants.Info.OwnTTL).
	TTL time.Duration `json:"ttl_ns,omitzero"`
	// AcquireTimeout bounds one blocking acquire. Default
	// DefaultAcquireTimeout.
	AcquireTimeout time.Duration `json:"acquire_timeout_ns"`
	// Retry overrides every variant's own retry policy when set.
	Retry variants.RetryPolicy `json:"retry,omitzero"`
	// Limit is the number of holders a semaphore admits. Default
	// DefaultLimit.
	Limit int `json:"limit"`
	// Faults run beside each cell's measured phase.
	Faults []faults.Fault `json:"faults,omitempty"`
	// ClientGroups split each cell's clients evenly into named groups
	// (client i in group i mod len): with a, b the clients-a and
	// clients-b that network faults' sides name, each group on
	// connections of its own. Default none: one group, clients.
	ClientGroups []string `json:"client_groups,omitempty"`
	// Scenario names the scenario the plan came from, if any.
	Scenario string `json:"scenario,omitempty"`
	// Repeat runs every cell this many times, with fresh keys, the
	// repetitions interleaved (all cells once, then all again) so that a
	// drift of the machine spreads over every cell. Default
	// DefaultRepeat.
	Repeat int `json:"repeat"`
	// Fence is what the protected resource does with a write whose
	// fencing token is lower than one it has seen: "count" it as stale
	// (default) or "reject" it (Kleppmann's fencing).
	Fence string `json:"fence"`
	// WaitStrict makes wait-replicas release and retry acquisitions too
	// few replicas acknowledged, instead of only counting them.
	WaitStrict bool `json:"wait_strict,omitempty"`
	// AllowDestructive lets a node fault act on a server lockbench did not
	// start, where it affects every client of that server: only a pause
	// with a time, sent as CLIENT PAUSE (see topologies.DestructiveControl).
	AllowDestructive bool `json:"allow_destructive,omitempty"`
	// Drivers are the lock drivers the plan's drv:NAME variants run
	// (Build finds them: drivers/*/driver.json, --driver NAME=CMD).
	Drivers []driver.Manifest `json:"drivers,omitempty"`
	// DriverProcs spreads a driver cell's clients over this many driver
	// processes, client i on process i mod DriverProcs, each started with
	// the cell and closed at its end. Default zero: DefaultDriverProcs
	// (the record echoes it only when given; see Procs).
	DriverProcs int `json:"driver_procs,omitempty"`
	// InterruptRelease makes every release of a driver's lock one on an
	// interrupted thread (the release request's interrupt: a JVM's
	// Thread.interrupt), for the libraries whose unlock an interrupt
	// changes; the driver must have the interrupt capability.
	InterruptRelease bool `json:"interrupt_release,omitempty"`
}

// Fence modes.
const (
	FenceCount  = "count"
	FenceReject = "reject"
)

// WithDefaults returns p with every unset optional field at its default
// (see defaults.go), for a plan made by hand; Build's plans have them.
func (p Plan) WithDefaults() Plan {
	if p.Client == "" {
		p.Client = DefaultClient
	}
	if p.AcquireTimeout <= 0 {
		p.AcquireTimeout = DefaultAcquireTimeout
	}
	if p.Limit <= 0 {
		p.Limit = DefaultLimit
	}
	if p.Workload.Keys <= 0 {
		p.Workload.Keys = DefaultKeys
	}
	if p.Repeat <= 0 {
		p.Repeat = DefaultRepeat
	}
	if p.Fence == "" {
		p.Fence = DefaultFence
	}
	return p
}

// Validate reports the first thing wrong with p (after WithDefaults).
func (p Plan) Validate() error {
	if len(p.Variants) == 0 {
		return fmt.Errorf("%w: no variants", ErrInvalid)
	}
	if err := p.checkDrivers(); err != nil {
		return err
	}
	for _, v := range p.Variants {
		if _, ok := DriverName(v); ok {
			continue // its driver says what it supports when it starts
		}
		info, err := variants.Lookup(v)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if shape := variants.Shape(p.Topology.Mode()); !info.Supports(shape) {
			return invalid(ErrShape, "%s does not run on %s (%s); it runs on %s", v, topologyName(p.Topology), shape, shapes(info))
		}
		if clients.Check(p.Client) == nil && !info.RunsOn(p.Client) {
			return invalid(ErrClient, "%s does not run on %s; it runs on %s", v, p.Client, strings.Join(info.Clients, ", "))
		}
		if p.Limit > 1 && info.Kind == variants.KindLock {
			return invalid(ErrNeedsSemaphore, "limit %d needs a semaphore, and %s is a lock (semaphores: %s)", p.Limit, v, strings.Join(Semaphores(), ", "))
		}
	}
	if len(p.Clients) == 0 {
		return fmt.Errorf("%w: no client counts", ErrInvalid)
	}
	for _, n := range p.Clients {
		w := p.Workload
		w.Clients = n
		if err := w.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	}
	if err := faults.Check(p.Faults, p.Workload.Duration, nil); err != nil {
		return err
	}
	if err := p.checkLinks(); err != nil {
		return err
	}
	if err := clients.Check(p.Client); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if p.Fence != FenceCount && p.Fence != FenceReject {
		return invalid(ErrFence, "fence %q: want %s or %s", p.Fence, FenceCount, FenceReject)
	}
	return nil
}

// Semaphores lists the registered semaphore variants.
func Semaphores() []string {
	var names []string
	for _, info := range variants.All() {
		if info.Kind == variants.KindSemaphore {
			names = append(names, info.Name)
		}
	}
	return names
}

func topologyName(t topologies.Spec) string {
	if t.Name == "" {
		return "local"
	}
	return t.Name
}

func shapes(info variants.Info) string {
	var out []string
	for _, s := range []variants.Shape{variants.ShapeSingle, variants.ShapeCluster, variants.ShapeIndependent} {
		if info.Supports(s) {
			out = append(out, string(s))
		}
	}
	return strings.Join(out, ", ")
}

// invalidError is a Validate error of a kind: its message is the case
// alone, and it matches both ErrInvalid and its kind.
type invalidError struct {
	msg  string
	kind error
}

func (e *invalidError) Error() string   { return e.msg }
func (e *invalidError) Unwrap() []error { return []error{ErrInvalid, e.kind} }

func invalid(kind error, format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...), kind: kind}
}
