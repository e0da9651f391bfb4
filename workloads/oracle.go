package workloads

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/metrics"
)

// Oracle is the protected resource the clients of a cell enter and leave
// while they hold the lock, which counts what the lock let through. In one
// process it is a [metrics.Oracle]; the shards of a run share a witness
// (package witness), so that holders in different processes are checked
// together. Every method is safe for concurrent use.
type Oracle interface {
	// Waiting and GaveUp bracket a client's try at resource that did not
	// end in EnterFenced.
	Waiting(resource int)
	GaveUp(resource int)
	// EnterFenced enters resource's critical section with the lease's
	// fencing token (0 for none).
	EnterFenced(resource int, token uint64) metrics.Entry
	// Exit writes the holder's update and reports whether the resource
	// took it; Abandon leaves without writing.
	Exit(metrics.Entry) bool
	Abandon(metrics.Entry)
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
