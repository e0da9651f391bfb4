// Package metrics owns what one run cell measures and the in-memory oracle
// that checks what the lock was supposed to guarantee.
//
// Recording follows "accumulate, then summarize once": the simulated clients
// of a cell share a few [Recorder]s, one per stripe of clients
// (HdrHistograms of acquire, release and hold times in microseconds, plus
// plain counters), and each client records through a [Tally] of its own,
// which keeps its latest events, four bytes each, and adds them to the
// stripe's recorder in one batch, under one lock, without allocating; at
// the end of the cell [Merge] combines the recorders into a [Summary] by
// merging histograms — percentiles are never averaged — and computes how
// fairly acquisitions were spread over the clients.
//
// The [Oracle] is the protected resource, independent of Redis. It never
// trusts the lock: each holder enters it, reads a counter, and on exit writes
// back the value it read plus one (the classic ticket sale). Two holders that
// overlap show up as an overlap, as time spent over the permitted number of
// holders, and as lost updates of the counter. It also times liveness:
// from the workload's Waiting and GaveUp it knows which clients wait (from
// a try that found the lock held to the end of the acquire), and the
// longest stretch during which a resource was free while one waited is
// its unavailability ([OracleReport.LongestUnavailable] says exactly when
// the clock starts and stops).
//
// A recorder counts errors by kind ([Recorder.Failed], [ClientError]) in a
// small fixed set of slots, with the first message of each kind.
//
// The package does no I/O and imports no other lockbench package but
// measure, whose types (latencies, seconds, fairness, error counts) its
// summaries are built in, and redisinfo, the pure parser of Redis' INFO
// text behind [ParseCommandStats] and [ParseCPU].
package metrics
