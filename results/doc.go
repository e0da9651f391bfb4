// Package results owns the run record: its versioned JSON schema, atomic
// saving and loading, and the renderers that turn it into a table,
// markdown, CSV or JSON. The record is the contract between a run and every
// later command: it carries merged HdrHistograms, so records can be merged
// and compared without running again.
package results
