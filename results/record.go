package results

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// SchemaVersion is the version of the record format written here. Readers
// refuse records of another version.
const SchemaVersion = 2

// Record is everything one run measured, with the configuration that
// produced it.
type Record struct {
	Schema      int       `json:"schema"`
	Tool        string    `json:"tool"`
	RunID       string    `json:"run_id"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Interrupted bool      `json:"interrupted"`
	// Failure says why a run that measured something failed: the Redis
	// under test stopped answering. The figures up to then stand; the
	// cells after it count errors.
	Failure  string       `json:"failure,omitempty"`
	Host     Host         `json:"host"`
	Config   plan.Plan    `json:"config"`
	Topology TopologyInfo `json:"topology"`
	Cells    []Cell       `json:"cells"`
	// Sweep is set on the records of lockbench sweep.
	Sweep *Sweep `json:"sweep,omitempty"`
	// Shard is set on the record of one shard of a sharded run (--shard):
	// its cells' Clients are the shard's own, Config keeps the whole
	// run's. A merged record has none.
	Shard *ShardInfo `json:"shard,omitempty"`
	// MissingShards are the shards (by index, from 1) a merge of a sharded
	// run lacked: its figures cover only the others.
	MissingShards []int `json:"missing_shards,omitempty"`
	// ShardCount is, on a merged record of a sharded run, how many shards
	// the run had.
	ShardCount int `json:"shard_count,omitempty"`
}

// ShardInfo says which shard of a sharded run a record is: Index from 1
// to Count.
type ShardInfo = workloads.Shard

// Host describes the machine that ran the load.
type Host struct {
	Hostname  string `json:"hostname"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
}

// ThisHost describes the running machine.
func ThisHost() Host {
	name, _ := os.Hostname()
	return Host{Hostname: name, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
}

// TopologyInfo says what Redis the run measured.
type TopologyInfo struct {
	// Name is the topology's canonical name, e.g. local:cluster?masters=3&replicas=0.
	Name string `json:"name"`
	// Mode is single, cluster or independent.
	Mode string `json:"mode"`
	// Nodes are every node with its role and address (no passwords).
	Nodes []topologies.Node `json:"nodes"`
	// Representative is false for the embedded miniredis, whose figures say
	// nothing of a real server.
	Representative bool   `json:"representative"`
	ServerVersion  string `json:"server_version,omitempty"`
	// StartupS is how long the topology took to start and answer.
	StartupS float64 `json:"startup_s"`
}

// Cell is one variant at one client count.
type Cell struct {
	Variant  string `json:"variant"`
	Client   string `json:"client"`
	Topology string `json:"topology"`
	Clients  int    `json:"clients"`
	Keys     int    `json:"keys"`
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

	ElapsedS       float64 `json:"elapsed_s"`
	Acquisitions   int64   `json:"acquisitions"`
	ThroughputPerS float64 `json:"throughput_per_s"`

	// AcquireLatencyUS counts from each acquisition's intended start: in an
	// open loop it includes the time an arrival waited for a free client
	// (coordinated-omission corrected). AcquireLatencyRawUS counts from the
	// actual start; in a closed loop the two are the same.
	AcquireLatencyUS    metrics.Latency `json:"acquire_latency_us"`
	AcquireLatencyRawUS metrics.Latency `json:"acquire_latency_raw_us"`
	ReleaseLatencyUS    metrics.Latency `json:"release_latency_us"`
	HoldTimeUS          metrics.Latency `json:"hold_time_us"`
	// HandoffLatencyUS is, on keys others were waiting for, the time from
	// a holder leaving to the next one entering: what waiting costs.
	HandoffLatencyUS metrics.Latency `json:"handoff_latency_us"`
	// Open loop only: the rate offered, the arrivals dropped for want of a
	// free client, and how late the schedule started arrivals.
	OfferedPerS float64         `json:"offered_per_s,omitempty"`
	Dropped     int64           `json:"dropped,omitempty"`
	LatenessUS  metrics.Latency `json:"lateness_us,omitzero"`

	Attempts       int64 `json:"attempts"`
	FailedAttempts int64 `json:"failed_attempts"`
	Timeouts       int64 `json:"timeouts"`
	Errors         int64 `json:"errors"`
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

	Fairness   metrics.Fairness `json:"fairness"`
	Violations Violations       `json:"violations"`
	// Witness is set when the cell's oracle was kept in a witness
	// (--witness): then the oracle's figures in Violations (all but
	// lease_lost, stale_releases and crashed) and the overlaps and holders
	// of Series are every shard's together, not this process's alone.
	Witness *WitnessInfo `json:"witness,omitempty"`
	Warmup  Warmup       `json:"warmup"`
	// Series has one entry per second of the measured phase.
	Series []metrics.Second `json:"series"`
	// Faults are the fault events of the cell, timed like Series.
	Faults     []faults.Event `json:"faults,omitempty"`
	Histograms Histograms     `json:"histograms"`
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
}

// NewCell summarizes one cell's outcome and oracle report.
func NewCell(out workloads.Outcome, oracle metrics.OracleReport) (Cell, error) {
	m := out.Measured
	c := Cell{
		ElapsedS:            out.Elapsed.Seconds(),
		Acquisitions:        m.Acquisitions,
		AcquireLatencyUS:    metrics.Quantiles(m.Acquire),
		AcquireLatencyRawUS: metrics.Quantiles(m.AcquireRaw),
		ReleaseLatencyUS:    metrics.Quantiles(m.Release),
		HoldTimeUS:          metrics.Quantiles(m.Hold),
		HandoffLatencyUS:    metrics.Quantiles(out.Handoff),
		Dropped:             m.Dropped,
		Attempts:            m.Attempts,
		FailedAttempts:      m.FailedAttempts,
		Timeouts:            m.Timeouts,
		Errors:              m.Errors,
		Commands:            m.Commands,
		Counters:            m.Notes,
		Fairness:            m.Fairness,
		Interrupted:         out.Interrupted,
		Violations: Violations{
			Overlaps:             oracle.Overlaps,
			MaxOccupancy:         oracle.MaxOccupancy,
			TimeOverLimitMS:      float64(oracle.TimeOverLimit) / float64(time.Millisecond),
			LostUpdates:          oracle.LostUpdates,
			CriticalSections:     oracle.CriticalSections,
			LeaseLost:            m.LeaseLost + out.Warmup.LeaseLost,
			Abandoned:            oracle.Abandoned,
			StaleReleases:        m.StaleReleases + out.Warmup.StaleReleases,
			StaleWrites:          oracle.StaleWrites,
			RejectedWrites:       oracle.RejectedWrites,
			LongestUnavailableMS: float64(oracle.LongestUnavailable) / float64(time.Millisecond),
			Crashed:              m.Crashed + out.Warmup.Crashed,
		},
		Warmup: Warmup{Acquisitions: out.Warmup.Acquisitions, Errors: out.Warmup.Errors, Timeouts: out.Warmup.Timeouts},
		Series: m.Series,
	}
	if out.Offered > 0 {
		c.LatenessUS = metrics.Quantiles(m.Lateness)
	}
	if elapsed := out.Elapsed.Seconds(); elapsed > 0 {
		c.ThroughputPerS = float64(m.Acquisitions) / elapsed
		c.OfferedPerS = float64(out.Offered) / elapsed
	}
	if m.Acquisitions > 0 {
		c.CommandsPerAcquisition = float64(m.Commands) / float64(m.Acquisitions)
	}
	for _, o := range out.ClockOffsets {
		c.ClockOffsetsMS = append(c.ClockOffsetsMS, float64(o)/float64(time.Millisecond))
	}
	for _, h := range []struct {
		dst  *string
		src  *hdrhistogram.Histogram
		name string
	}{
		{&c.Histograms.Acquire, m.Acquire, "acquire"}, {&c.Histograms.AcquireRaw, m.AcquireRaw, "acquire_raw"},
		{&c.Histograms.Release, m.Release, "release"}, {&c.Histograms.Hold, m.Hold, "hold"},
		{&c.Histograms.Handoff, out.Handoff, "handoff"},
	} {
		encoded, err := metrics.EncodeHistogram(h.src)
		if err != nil {
			return c, fmt.Errorf("results: %s histogram: %w", h.name, err)
		}
		*h.dst = encoded
	}
	return c, nil
}

// ServerCost is what the measured phase cost Redis, per the servers' own
// INFO commandstats and INFO cpu.
type ServerCost struct {
	metrics.ServerCost
	// CommandsPerAcquisition counts every command Redis ran, those a Lua
	// script ran with redis.call included (Redis counts them too), per
	// acquisition. ScriptRuns is how many EVAL, EVALSHA and FCALL it ran.
	CommandsPerAcquisition float64 `json:"commands_per_acquisition"`
	ScriptRuns             int64   `json:"script_runs"`
	// CPUMicrosPerAcquisition is the servers' CPU time (user + sys, all
	// data nodes) per acquisition; AcquisitionsPerCore is the ceiling it
	// implies: acquisitions per second one fully busy Redis core could serve.
	CPUMicrosPerAcquisition float64 `json:"cpu_us_per_acquisition"`
	AcquisitionsPerCore     float64 `json:"acquisitions_per_core_s"`
}

// NewServerCost relates a server cost to the acquisitions that caused it.
func NewServerCost(cost metrics.ServerCost, acquisitions int64) *ServerCost {
	s := &ServerCost{ServerCost: cost}
	for _, name := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"} {
		s.ScriptRuns += cost.ByCommand[name]
	}
	if acquisitions > 0 {
		s.CommandsPerAcquisition = float64(cost.Commands) / float64(acquisitions)
		s.CPUMicrosPerAcquisition = cost.CPUSeconds * 1e6 / float64(acquisitions)
	}
	if s.CPUMicrosPerAcquisition > 0 {
		s.AcquisitionsPerCore = 1e6 / s.CPUMicrosPerAcquisition
	}
	return s
}
