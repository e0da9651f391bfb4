package record

import (
	"time"

	"github.com/lockbench/lockbench/measure"
)

// Fence modes of Config.Fence: what the protected resource does with a
// write whose fencing token is lower than one it has seen.
const (
	FenceCount  = "count"
	FenceReject = "reject"
)

// RunConfig is the run's plan as the record echoes it: what was asked for,
// in the plan's own JSON shape (field for field, so that a plan encodes
// to the same JSON as the RunConfig made from it). Durations, distributions
// and policies are in their text form: the record is read without the
// packages that parse them.
type RunConfig struct {
	Variants []string     `json:"variants"`
	Clients  []int        `json:"clients"`
	Client   string       `json:"client"`
	Topology TopologySpec `json:"topology"`
	// Servers are the server binaries the local topology ran on
	// (--server, --servers: redis, valkey or a path), each cell on each;
	// none: redis-server from PATH.
	Servers  []string `json:"servers,omitempty"`
	Workload Workload `json:"workload"`
	// TTL is the lease time the run gave (--ttl); 0: each variant's own
	// default (DefaultTTL for lockbench's, the library's for a library).
	TTL            time.Duration `json:"ttl_ns,omitzero"`
	AcquireTimeout time.Duration `json:"acquire_timeout_ns"`
	// Retry is the retry policy that overrode every variant's own, in
	// --retry's syntax (exp:1ms-50ms); "" for none.
	Retry  string              `json:"retry,omitempty"`
	Limit  int                 `json:"limit"`
	Faults []measure.FaultSpec `json:"faults,omitempty"`
	// ClientGroups are the client groups (--client-groups) network faults'
	// sides name as clients-<group>.
	ClientGroups []string `json:"client_groups,omitempty"`
	Scenario     string   `json:"scenario,omitempty"`
	Repeat       int      `json:"repeat"`
	// Fence is FenceCount or FenceReject.
	Fence            string `json:"fence"`
	WaitStrict       bool   `json:"wait_strict,omitempty"`
	AllowDestructive bool   `json:"allow_destructive,omitempty"`
	// Drivers are the lock drivers of the run's drv:NAME variants, as
	// their manifests (or --driver) named them.
	Drivers []DriverSpec `json:"drivers,omitempty"`
	// DriverProcs is --driver-procs when given: a driver cell's clients
	// spread over that many processes; 0: one.
	DriverProcs int `json:"driver_procs,omitempty"`
	// InterruptRelease is --interrupt-release: every driver release on an
	// interrupted thread.
	InterruptRelease bool `json:"interrupt_release,omitempty"`
}

// DriverSpec is a lock driver as its manifest names it.
type DriverSpec struct {
	Name     string   `json:"name"`
	Library  string   `json:"library"`
	Language string   `json:"language"`
	Command  []string `json:"command"`
	Requires string   `json:"requires,omitempty"`
	Summary  string   `json:"summary,omitempty"`
}

// TopologySpec is where the plan said Redis is, passwords left out.
type TopologySpec struct {
	Name        string   `json:"name"`
	Targets     []string `json:"targets,omitempty"`
	Cluster     []string `json:"cluster,omitempty"`
	Sentinels   []string `json:"sentinels,omitempty"`
	MasterName  string   `json:"master_name,omitempty"`
	TLSCA       string   `json:"tls_ca,omitempty"`
	TLSInsecure bool     `json:"tls_insecure,omitempty"`
}

// Workload is the load of each cell, as the plan gave it.
type Workload struct {
	// Clients is set on a cell's own load only: the plan's are
	// RunConfig.Clients.
	Clients      int  `json:"clients,omitempty"`
	Keys         int  `json:"keys"`
	KeyPerClient bool `json:"key_per_client,omitempty"`
	// KeyDist is how names were picked among Keys, in --key-dist's syntax
	// (zipf:1.2, hot:0.5); "" uniform.
	KeyDist string `json:"key_dist,omitempty"`
	// Hold and Think are distributions in --hold's syntax (2ms, exp:2ms,
	// uniform:1ms-5ms).
	Hold     string        `json:"hold"`
	Think    string        `json:"think"`
	Duration time.Duration `json:"duration_ns"`
	Ops      int64         `json:"ops,omitempty"`
	Warmup   time.Duration `json:"warmup_ns"`
	Clocks   Clocks        `json:"clocks,omitzero"`
	Rate     float64       `json:"rate,omitempty"`
	Arrivals string        `json:"arrivals,omitempty"`
	// Pacing is the open loop's (--pacing): sleep, or spin; "" sleep.
	Pacing string `json:"pacing,omitempty"`
	// Stages are the open loop's ramps, each DURATION:RATE (10s:5000).
	Stages []string `json:"stages,omitempty"`
}

// Clocks are the clients' clocks: Skew in --clock-skew's syntax (+200ms,
// uniform:-500ms..500ms), Jumps in --clock-jump's (+2s@5s).
type Clocks struct {
	Skew  string   `json:"skew"`
	Jumps []string `json:"jumps,omitempty"`
}

// IsZero reports whether every client had the machine's clock.
func (c Clocks) IsZero() bool { return (c.Skew == "" || c.Skew == zeroDuration) && len(c.Jumps) == 0 }

// zeroDuration is how a zero duration, distribution or skew is written.
const zeroDuration = "0s"

// OrZero is a duration's text, "0s" when the record has none.
func OrZero(s string) string {
	if s == "" {
		return zeroDuration
	}
	return s
}
