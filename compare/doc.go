// Package compare owns the statistical comparison of two run records, the
// way benchstat compares two sets of Go benchmark results: it matches the
// cells of an old and a new record, takes one value per repetition of each
// cell (lockbench run --repeat N), summarizes each side by its median and a
// 95 % confidence interval, and tests whether the two sides differ with the
// Mann-Whitney U test (golang.org/x/perf/benchmath, assuming nothing about
// the distribution). A change counts only when that test's p-value is below
// alpha; everything else is shown as ~.
//
// It also owns the --fail-on rules that turn a comparison into a verdict
// (acquire.p99:+10%, throughput:-5%, overlaps:>0) and the renderers of a
// report (text table, markdown for a pull-request comment, CSV, JSON).
//
// The package reads records and writes reports; it does no other I/O.
package compare
