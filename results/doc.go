// Package results owns the run record: its versioned JSON schema (and
// the migration of the versions before), atomic saving and loading, and
// the renderers that turn it into a table, markdown, CSV, JSON or
// HdrHistogram interval logs. The record is the contract between a run
// and every later command. Its types are this package's own, so a record
// is read, merged, compared and rendered without the packages that ran it
// (no Redis client, no topology, no variant registry: the runner converts
// what it measured into them). It carries merged HdrHistograms, so
// records can be merged and compared without running again. It also owns
// what is read from a record: named figures and thresholds, the summary of
// a cell's repetitions, each cell's verdict and the conclusions of a
// comparison, and a sweep's analysis.
package results
