// Package oracle owns the oracle: the protected resource of a run cell,
// which counts the violations of what the lock was supposed to guarantee
// and never trusts the lock.
//
// Each holder enters the resource, reads a counter, and on exit writes back
// the value it read plus one (the classic ticket sale). Two holders that
// overlap show up as an overlap, as time spent over the permitted number of
// holders, and as lost updates of the counter. Where the lock hands out
// fencing tokens, the resource checks each write's token against the
// highest it has seen, and counts (or refuses) stale writes. The oracle also
// times liveness: from the workload's Waiting and GaveUp it knows which
// clients wait (from a try that found the lock held to the end of the
// acquire), and the longest stretch during which a resource was free while
// one waited is its unavailability ([Report.LongestUnavailable] says
// exactly when the clock starts and stops).
//
// [Oracle] is the interface the workload drives (package workloads).
// [Memory], made by [New], keeps the resources in this process; package
// witness keeps them in a Redis of its own, for the shards of a run in many
// processes, and implements the same interface with the same meaning for
// every figure of the [Report].
//
// The import arrow points from oracle to metrics: the oracle's handoff
// histogram has metrics' geometry ([metrics.NewHistogram]), so that it
// merges with the run's other figures; metrics knows nothing of the
// oracle. The package does no I/O and imports no lockbench package but
// metrics.
package oracle
