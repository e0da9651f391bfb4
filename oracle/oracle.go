package oracle

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Oracle is the protected resource the clients of a cell enter and leave
// while they hold the lock, which counts what the lock let through. In one
// process it is a [Memory]; the shards of a run (--shard) share a witness
// (package witness), so that holders in different processes are checked
// together. Every method is safe for concurrent use.
type Oracle interface {
	// Waiting and GaveUp bracket a client's wait for resource: from its
	// first try that found it held (every permit taken) to the end of the
	// acquire (given up, timed out, or about to enter), or after a
	// fail-fast acquire until the client stops trying for resource at
	// once. A client whose first try takes the lock never waits. WaitingAt
	// and GaveUpAt are Waiting and GaveUp at at, a time the workload read
	// from the machine's clock (see EnterFencedAt).
	Waiting(resource int)
	GaveUp(resource int)
	WaitingAt(resource int, at time.Time)
	GaveUpAt(resource int, at time.Time)
	// EnterFenced enters resource's critical section with the lease's
	// fencing token (0 for none).
	EnterFenced(resource int, token uint64) Entry
	// Exit writes the holder's update and reports whether the resource
	// took it; Abandon leaves without writing.
	Exit(Entry) bool
	Abandon(Entry)
	// EnterFencedAt, ExitAt and AbandonAt are EnterFenced, Exit and
	// Abandon at at, the time the workload read from the machine's clock
	// for the acquisition or the exit: an oracle that times with that
	// clock ([Memory]) takes it instead of reading it again; one with a
	// clock of its own (a witness) may ignore it.
	EnterFencedAt(resource int, token uint64, at time.Time) Entry
	ExitAt(e Entry, at time.Time) bool
	AbandonAt(e Entry, at time.Time)
	// Intruded reports whether a later holder is inside the entry's
	// resource now.
	Intruded(Entry) bool
	// Report is what the oracle has seen so far.
	Report() Report
	// Handoff is the release-to-next-entry histogram (µs) of the entries
	// made through this oracle.
	Handoff() *hdrhistogram.Histogram
}

var _ Oracle = (*Memory)(nil)

// Entry is one holder's stay in a critical section, returned by
// [Oracle.EnterFenced] and handed back to exactly one of [Oracle.Exit] or
// [Oracle.Abandon].
type Entry struct {
	resource  int
	valueRead int64
	entered   bool
	epoch     int64  // the resource's entry count at this entry
	token     uint64 // the holder's fencing token, 0 for none
}

// Resource returns the resource the holder entered.
func (e Entry) Resource() int { return e.resource }

// ValueRead returns the resource's counter as read when the holder entered.
func (e Entry) ValueRead() int64 { return e.valueRead }

// Token returns the fencing token the holder's write carries, 0 for none.
func (e Entry) Token() uint64 { return e.token }

// Epoch returns the resource's entry count at this entry: later entries
// have higher epochs.
func (e Entry) Epoch() int64 { return e.epoch }

// NewEntry returns the entry of a holder of resource that read valueRead at
// entry number epoch, writing with fencing token token (0 for none): what an
// oracle kept elsewhere (a witness) hands its holders.
func NewEntry(resource int, valueRead, epoch int64, token uint64) Entry {
	return Entry{resource: resource, valueRead: valueRead, entered: true, epoch: epoch, token: token}
}
