// Package report renders run records (record.Record) into one
// self-contained HTML page. Each record's section leads with the verdict:
// the conclusions and package render's compact summary table (which fit a
// 1280 px window), every figure folded below; then the run's
// configuration, and charts drawn in Go as inline SVG (gonum.org/v1/plot),
// their legends beside the plots, a line that would flatten the others
// (the none control) on a panel of its own scale — the latency
// percentile spectrum from the records' HdrHistograms, throughput, p99
// and overlaps over time with the fault events marked, acquisitions per
// client, and a sweep's steps with its fitted scalability model. The
// page loads nothing from the network and runs no script: it opens
// offline, from a file, in any browser.
//
// The package owns the page only; the record, its figures and its table
// columns are package render's.
package report
