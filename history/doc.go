// Package history owns the history of one run cell: every operation its
// clients ran, each as an invocation event and a completion event, the way
// Jepsen records a test. It is the evidence behind the oracle's counts,
// and what package linearize checks independently of the oracle.
//
// The operations are a client's cycle — acquire, enter (the protected
// resource's critical section), exit, release — and the renewals of its
// lease (extend). A completion's type says whether the operation took
// effect: ok (it did), fail (it certainly did not), info (unknown: an
// error or a timeout during a fault; it may have). A failed release is
// the lease found lost; a failed extend did not renew. An exit leaves the
// section: ok having written, fail without its write taking effect
// (abandoned, or refused as stale), info when nobody knows whether it
// left. docs/history.md has the table.
//
// A [Recorder] is filled on the hot path by many goroutines (the clients,
// and the renewal goroutines that record their leases' extends beside
// them, an extend sometimes completing after its lease's release was
// recorded): preallocated
// to a capacity of events, one clock reading and one atomic add per event,
// no allocation; events past the capacity are dropped and the history is
// marked cut (a prefix of what happened). [Recorder.History] sorts the
// events by time when the cell is over.
//
// Two written forms:
//
//   - JSON lines ([WriteJSON], [ReadJSON]): a header object ([Meta]), then
//     one [Event] per line:
//
//     {"schema":"lockbench-history/1","limit":1,"start":"2026-01-02T03:04:05Z","capacity":4194304,"dropped":0,"cut":false}
//     {"index":0,"type":"invoke","op":"acquire","process":0,"key":"lockbench:k0","time":1200,"invoke":0,"lease":0}
//     {"index":1,"type":"ok","op":"acquire","process":0,"key":"lockbench:k0","time":95000,"invoke":0,"lease":0,"fence":7}
//
//     index is the event's position (time order); time is nanoseconds of
//     the monotonic clock since the cell's start; invoke is the index of
//     the operation's invocation (its own, for an invocation); lease is
//     the index of the invocation of the acquire whose lease the operation
//     acts on; fence is the fencing token, left out when there is none.
//     docs/history.md describes every field.
//
//   - Jepsen's EDN ([WriteEDN]), one op map a line, as Knossos and
//     elle-cli read: {:process 0, :type :invoke, :f :acquire, :value
//     ["lockbench:k0" nil], :time 1200, :index 0}. By default the critical
//     sections are written as :acquire (enter) and :release (exit), so
//     that Knossos' mutex model checks what the oracle checks; the lock
//     name goes into :value as a [key nil] pair, the way jepsen.independent
//     tuples print, or, with [EDNOptions].Key, one key's ops alone with
//     :value nil.
//
// [Files] is what lockbench check reads from a history directory or any
// mix of the files run --history wrote into one (EDN and drawings passed
// over with a note).
//
// The package imports no other lockbench package.
package history
