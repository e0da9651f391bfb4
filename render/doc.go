// Package render turns a run record (package record) into text: the
// compact and wide tables, markdown, CSV and JSON, the columns a table
// may show, each cell's verdict and the conclusions of a comparison, the
// notes on errors and settings, the findings report and a sweep's report,
// and text wrapped to a width (Wrap, Labelled).
// It reads records only; it runs nothing.
package render
