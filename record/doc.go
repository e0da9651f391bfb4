// Package record owns the run record and the operations on it: its
// versioned JSON schema (and the migration of the versions before),
// atomic saving and loading, merging the records of a run's shards (with
// the rules each field merges by), the summary of a cell's repetitions,
// named figures and --check thresholds, a sweep's analysis, and the
// HdrHistogram interval logs of a record. The record is the contract
// between a run and every later command. A record is read, merged,
// compared and rendered without the packages that ran it (no Redis
// client, no topology, no variant registry: the runner converts what it
// measured into it). It carries merged HdrHistograms, so records can be
// merged and compared without running again. Turning a record into text
// is package render's.
package record
