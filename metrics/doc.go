// Package metrics owns what one run cell measures: latencies, counts,
// fairness, the margins of expiring leases and what Redis spent. The oracle
// that checks what the lock was supposed to guarantee is package oracle,
// which imports this one (for the histograms' geometry), never the reverse.
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
// A recorder counts errors by kind ([Recorder.Failed], [ClientError]) in a
// small fixed set of slots, with the first message of each kind.
//
// The package does no I/O and imports no other lockbench package but
// measure, whose types (latencies, seconds, fairness, error counts) its
// summaries are built in, and redisinfo, the pure parser of Redis' INFO
// text behind [ParseCommandStats] and [ParseCPU].
package metrics
