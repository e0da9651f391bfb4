package workloads

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/metrics"
)

// Oracle is the protected resource the clients of a cell enter and leave
// while they hold the lock, which counts what the lock let through. In one
// process it is a [metrics.Oracle]; the shards of a run (--shard) share a
// witness (package witness), so that holders in different processes are
// checked together. Every method is safe for concurrent use.
type Oracle interface {
	// Waiting and GaveUp bracket a client's wait for resource: from its
	// first try that found it held (every permit taken) to the end of the
	// acquire (given up, timed out, or about to enter), or after a
	// fail-fast acquire until the client stops trying for resource at
	// once. A client whose first try takes the lock never waits. WaitingAt and GaveUpAt are
	// Waiting and GaveUp at at, a time the workload read from the
	// machine's clock (see EnterFencedAt).
	Waiting(resource int)
	GaveUp(resource int)
	WaitingAt(resource int, at time.Time)
	GaveUpAt(resource int, at time.Time)
	// EnterFenced enters resource's critical section with the lease's
	// fencing token (0 for none).
	EnterFenced(resource int, token uint64) metrics.Entry
	// Exit writes the holder's update and reports whether the resource
	// took it; Abandon leaves without writing.
	Exit(metrics.Entry) bool
	Abandon(metrics.Entry)
	// EnterFencedAt, ExitAt and AbandonAt are EnterFenced, Exit and
	// Abandon at at, the time the workload read from the machine's clock
	// for the acquisition or the exit: an oracle that times with that
	// clock (metrics.Oracle) takes it instead of reading it again; one
	// with a clock of its own (a witness) may ignore it.
	EnterFencedAt(resource int, token uint64, at time.Time) metrics.Entry
	ExitAt(e metrics.Entry, at time.Time) bool
	AbandonAt(e metrics.Entry, at time.Time)
	// Intruded reports whether a later holder is inside the entry's
	// resource now.
	Intruded(metrics.Entry) bool
	// Report is what the oracle has seen so far.
	Report() metrics.OracleReport
	// Handoff is the release-to-next-entry histogram (µs) of the entries
	// made through this oracle.
	Handoff() *hdrhistogram.Histogram
}

var _ Oracle = (*metrics.Oracle)(nil)
