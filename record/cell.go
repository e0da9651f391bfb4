package record

import (
	"time"

	"github.com/lockbench/lockbench/measure"
)

// Cell is one variant at one client count.
type Cell struct {
	Variant  string `json:"variant"`
	Client   string `json:"client"`
	Topology string `json:"topology"`
	// Product is the server the cell ran on, its data nodes' product and
	// version ("valkey 8.0.1"): a run on several servers (--servers) has a
	// cell per server, which merge, repetitions and compare keep apart.
	Product string `json:"product,omitempty"`
	Clients int    `json:"clients"`
	Keys    int    `json:"keys"`
	// Repetition numbers the runs of one cell under --repeat, from 1.
	Repetition int `json:"repetition"`
	// Limit is the holders the oracle admits per key: 1 for a lock, the
	// permits of a semaphore.
	Limit int `json:"limit"`
	// ClockOffsetsMS are the clients' clock offsets under --clock-skew.
	ClockOffsetsMS []float64 `json:"clock_offsets_ms,omitempty"`
	// Interrupted marks a cell cut short by Ctrl-C: its figures cover only
	// what ran.
	Interrupted bool `json:"interrupted,omitempty"`
	// Error is why the cell could not run; its figures are then empty.
	Error string `json:"error,omitempty"`
	// Settings says which lease time and retry a variant wrapping a lock
	// library used: the library's own defaults or the run's.
	Settings string `json:"settings,omitempty"`
	// Fencing says that the variant hands out fencing tokens: the table
	// then shows the stale and rejected writes.
	Fencing bool `json:"fencing,omitempty"`
	// Driver is the lock driver of a drv:NAME cell (its lock runs in
	// driver processes); nil for lockbench's own variants.
	Driver *Driver `json:"driver,omitempty"`

	ElapsedS       float64 `json:"elapsed_s"`
	Acquisitions   int64   `json:"acquisitions"`
	ThroughputPerS float64 `json:"throughput_per_s"`
	// ClientCPUSeconds is the user and system CPU lockbench's own process
	// used in the measured phase: its clients, the workload, the oracle
	// and the recorders (a driver's processes are Driver.CPUSeconds). 0
	// where unknown.
	ClientCPUSeconds float64 `json:"client_cpu_seconds,omitempty"`

	// AcquireLatencyUS counts from each acquisition's intended start: in an
	// open loop it includes the time an arrival waited for a free client
	// (coordinated-omission corrected). AcquireLatencyRawUS counts from the
	// actual start; in a closed loop the two are the same.
	AcquireLatencyUS    measure.Latency `json:"acquire_latency_us"`
	AcquireLatencyRawUS measure.Latency `json:"acquire_latency_raw_us"`
	ReleaseLatencyUS    measure.Latency `json:"release_latency_us"`
	HoldTimeUS          measure.Latency `json:"hold_time_us"`
	// HandoffLatencyUS is, on keys others were waiting for, the time from
	// a holder leaving to the next one entering: what waiting costs.
	HandoffLatencyUS measure.Latency `json:"handoff_latency_us"`
	// Open loop only: the rate offered, the arrivals dropped for want of a
	// free client, and how late the schedule started arrivals.
	OfferedPerS float64         `json:"offered_per_s,omitempty"`
	Dropped     int64           `json:"dropped,omitempty"`
	LatenessUS  measure.Latency `json:"lateness_us,omitzero"`

	Attempts       int64 `json:"attempts"`
	FailedAttempts int64 `json:"failed_attempts"`
	Timeouts       int64 `json:"timeouts"`
	Errors         int64 `json:"errors"`
	// ErrorsByKind is Errors by kind — the Redis error prefix (OOM,
	// READONLY, MOVED, ...), or timeout, connection refused, connection
	// reset, EOF, other — with the first message of each kind; absent
	// without errors.
	ErrorsByKind map[string]measure.ErrorCount `json:"errors_by_kind,omitempty"`
	// Commands were sent by the clients in the measured phase, counted at
	// the connection interface (watchdog renewals included).
	Commands               int64   `json:"commands"`
	CommandsPerAcquisition float64 `json:"commands_per_acquisition"`

	// Counters are the variant's own counts in the measured phase (e.g.
	// wait-replicas' "unacked" acquisitions), by name.
	Counters map[string]int64 `json:"counters,omitempty"`

	// Server is what the measured phase cost the Redis servers, from their
	// own counters; nil where they do not report them.
	Server *ServerCost `json:"server,omitempty"`
	// ServerNote says what Server leaves out and why (a node that stopped
	// answering, restarted or changed role), or why there is none.
	ServerNote string `json:"server_note,omitempty"`

	Fairness   measure.Fairness `json:"fairness"`
	Violations Violations       `json:"violations"`
	// Witness is set when the cell's oracle was kept in a witness
	// (--witness): then the oracle's figures in Violations (all but
	// lease_lost, stale_releases and crashed) and the overlaps and holders
	// of Series are every shard's together, not this process's alone.
	Witness *WitnessInfo `json:"witness,omitempty"`
	Warmup  Warmup       `json:"warmup"`
	// Series has one entry per second of the measured phase.
	Series []measure.Second `json:"series"`
	// Faults are the fault events of the cell, timed like Series.
	Faults []measure.FaultEvent `json:"faults,omitempty"`
	// Margins say how close the leases came to expiring; nil for a
	// variant whose leases do not expire.
	Margins *Margins `json:"margins,omitempty"`
	// History says how much of the cell's history was kept, where it was
	// written and porcupine's verdict on it; nil when none was recorded
	// (run --history, --check-history).
	History    *HistoryInfo `json:"history,omitempty"`
	Histograms Histograms   `json:"histograms"`
}

// Violations are what the oracle saw, over the whole cell (warm-up
// included: a violation is one wherever it happens).
type Violations struct {
	// Overlaps counts entries into the resource that made its holders exceed
	// the limit.
	Overlaps        int64   `json:"overlaps"`
	MaxOccupancy    int64   `json:"max_occupancy"`
	TimeOverLimitMS float64 `json:"time_over_limit_ms"`
	// LostUpdates is critical sections whose counter increment was lost
	// (tickets oversold); counted only for locks (limit 1).
	LostUpdates      int64 `json:"lost_updates"`
	CriticalSections int64 `json:"critical_sections"`
	// LeaseLost counts releases and renewals that found the lease gone.
	LeaseLost int64 `json:"lease_lost"`
	// Abandoned counts critical sections left early because the holder
	// learned its lease was lost (or crashed).
	Abandoned int64 `json:"abandoned"`
	// StaleReleases counts releases that succeeded while a later holder
	// was inside: the release freed someone else's lock.
	StaleReleases int64 `json:"stale_releases"`
	// StaleWrites counts writes to the resource whose fencing token was
	// lower than one it had been written with, accepted (--fence count).
	StaleWrites int64 `json:"stale_writes"`
	// RejectedWrites counts such writes the resource refused (--fence
	// reject); a refused write is no critical section, and its holder
	// counts a lost lease.
	RejectedWrites int64 `json:"rejected_writes"`
	// LongestUnavailableMS is the longest time a lock name sat free while
	// clients waited for it (liveness).
	LongestUnavailableMS float64 `json:"longest_unavailable_ms"`
	// Crashed counts clients a fault crashed.
	Crashed int64 `json:"crashed,omitempty"`
}

// WitnessInfo says how a cell's oracle figures were read from the witness.
type WitnessInfo struct {
	// Done is how many of the run's shards had finished the cell when
	// this process read the witness: the figures are final when it equals
	// the shard count (a merge takes them from the shard that read last).
	Done int `json:"done"`
	// Absent are the shards (from 1) that had not reached the witness
	// when the wait for them ran out: the cell started without them.
	Absent []int `json:"absent,omitempty"`
	// Failures counts calls to the witness that failed: their holders went
	// on unwitnessed, so the figures are a lower bound.
	Failures int64 `json:"failures,omitempty"`
	// FirstFailure is the first of those failures.
	FirstFailure string `json:"first_failure,omitempty"`
}

// Warmup summarizes the warm-up phase, which the figures above leave out.
type Warmup struct {
	Acquisitions int64 `json:"acquisitions"`
	Errors       int64 `json:"errors"`
	Timeouts     int64 `json:"timeouts"`
}

// Histograms are the measured phase's HdrHistograms (microseconds) in
// HdrHistogram's V2 compressed encoding, base64.
type Histograms struct {
	Acquire    string `json:"acquire"`
	AcquireRaw string `json:"acquire_raw"`
	Release    string `json:"release"`
	Hold       string `json:"hold"`
	Handoff    string `json:"handoff"`
	// The margins' (Cell.Margins), empty without them.
	ValidityLeft string `json:"validity_left,omitempty"`
	Late         string `json:"late,omitempty"`
	LossNotice   string `json:"loss_notice,omitempty"`
}

// ServerCost is what the measured phase cost Redis, per the servers' own
// INFO commandstats and INFO cpu.
type ServerCost struct {
	// Commands is how many commands the masters ran, housekeeping left out
	// (connection setup, topology discovery, replication, INFO). Like
	// Redis, it counts the commands Lua scripts ran (redis.call).
	Commands int64 `json:"commands"`
	// ByCommand is Commands per command name.
	ByCommand map[string]int64 `json:"by_command"`
	// Housekeeping is how many housekeeping commands the masters ran.
	Housekeeping int64 `json:"housekeeping_commands"`
	// CPUSeconds is the user+sys CPU time of every data node, replicas
	// included, sentinels not.
	CPUSeconds float64 `json:"cpu_seconds"`
	// Nodes is the cost per node.
	Nodes []measure.NodeCost `json:"nodes"`

	// The figures below relate the cost to the cell's acquisitions (see
	// Relate). CommandsPerAcquisition counts every command Redis ran, those
	// a Lua script ran with redis.call included, per acquisition.
	// ScriptRuns is how many EVAL, EVALSHA and FCALL it ran.
	CommandsPerAcquisition float64 `json:"commands_per_acquisition"`
	ScriptRuns             int64   `json:"script_runs"`
	// CPUMicrosPerAcquisition is the servers' CPU time (user + sys, all
	// data nodes) per acquisition; AcquisitionsPerCore is the ceiling it
	// implies: acquisitions per second one fully busy Redis core could serve.
	CPUMicrosPerAcquisition float64 `json:"cpu_us_per_acquisition"`
	AcquisitionsPerCore     float64 `json:"acquisitions_per_core_s"`
}

// scriptCommands are the commands that run a script or function.
var scriptCommands = []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"}

// Relate fills in the figures that relate the cost to the acquisitions
// that caused it: the script runs and the per-acquisition figures.
func (s *ServerCost) Relate(acquisitions int64) {
	s.ScriptRuns, s.CommandsPerAcquisition, s.CPUMicrosPerAcquisition, s.AcquisitionsPerCore = 0, 0, 0, 0
	for _, name := range scriptCommands {
		s.ScriptRuns += s.ByCommand[name]
	}
	if acquisitions > 0 {
		s.CommandsPerAcquisition = float64(s.Commands) / float64(acquisitions)
		s.CPUMicrosPerAcquisition = s.CPUSeconds * 1e6 / float64(acquisitions)
	}
	if s.CPUMicrosPerAcquisition > 0 {
		s.AcquisitionsPerCore = 1e6 / s.CPUMicrosPerAcquisition
	}
}

// Driver is the lock driver a cell ran (a drv:NAME variant): what it is,
// as its manifest and its init_ok said, how many processes served the
// cell's clients, and the time its library's own acquire calls took.
type Driver struct {
	Name     string   `json:"name"`
	Command  []string `json:"command"`
	Library  string   `json:"library"`
	Version  string   `json:"version"`
	Language string   `json:"language"`
	// Procs is how many driver processes served the cell's clients
	// (--driver-procs), client i on process i mod Procs.
	Procs int `json:"procs"`
	// TTL is the lease time the driver was told in init: the run's
	// --ttl, or lockbench's default for a library that has none (the
	// manifest's no_default_ttl; the cell's Settings say so). Absent: 0,
	// the library's own.
	TTL time.Duration `json:"ttl_ns,omitempty"`
	// LibraryAcquireUS is the time the library's successful acquire calls
	// took in the measured phase, as the driver reported it (took_us):
	// beside AcquireLatencyUS, which lockbench stamps on its own clock
	// around the request, it shows what the protocol's pipe costs. Absent
	// when the driver reports no times.
	LibraryAcquireUS measure.Latency `json:"library_acquire_us,omitzero"`
	// CPUSeconds is the user and system CPU the cell's driver processes
	// used in the measured phase, all their threads (/proc, in 10 ms
	// steps): beside ClientCPUSeconds, what the client side of each
	// acquisition costs. 0 where unknown.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// Unanswered are the processes that left requests of the cell's
	// clients unanswered: sent, and no reply read by the time lockbench
	// closed them at the cell's end (a driver that stopped answering; or
	// acquires still waiting for a held lock when the cell ended). Absent
	// when every request was answered.
	Unanswered []UnansweredRequests `json:"unanswered,omitempty"`
}

// UnansweredRequests are the requests one driver process of a cell left
// unanswered.
type UnansweredRequests struct {
	// Process numbers the cell's driver processes from 1 (driver-1,
	// the fault events' name); PID is its process id.
	Process int `json:"process"`
	PID     int `json:"pid"`
	// Requests is how many it left unanswered, ByOp by operation
	// (acquire, release, extend).
	Requests int            `json:"requests"`
	ByOp     map[string]int `json:"by_op"`
	// Answered is how many of the clients' requests it did answer.
	Answered int64 `json:"answered"`
}
