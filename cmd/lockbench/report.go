package main

import (
	"fmt"
	"io"
	"os"

	"github.com/lockbench/lockbench/outputs"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/report"
)

// reportOptions are the flags of lockbench report.
type reportOptions struct {
	out   string // the HTML file; required
	title string // the page's title; default "lockbench report"
}

// runReport renders records into one self-contained HTML page.
func runReport(args []string, stdout, stderr io.Writer) error {
	var o reportOptions
	fs := newFlagSet("report", stderr)
	fs.StringVarP(&o.out, "out", "o", "", "the HTML `FILE` to write (required)")
	fs.StringVar(&o.title, "title", "", "the page's `TITLE` (default \"lockbench report\")")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("report: give at least one record (lockbench report results/runs/*.json -o report.html)")
	}
	if o.out == "" {
		return usagef("--out: the report needs a file (-o report.html)")
	}
	if info, err := os.Stat(o.out); err == nil && info.IsDir() {
		return usagef("--out: %s is a directory; give a file (-o report.html)", o.out)
	}
	if err := outputs.CheckFile("--out", o.out); err != nil {
		return err
	}
	var recs []*record.Record
	for _, path := range fs.Args() {
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			return usagef("report: %s is a directory; give record files (%s/*.json)", path, path)
		}
		rec, err := record.Load(path)
		if err != nil {
			return usageError{err}
		}
		recs = append(recs, rec)
	}
	if err := report.WriteFile(o.out, recs, report.Options{Title: o.title}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report of %d record(s) written to %s\n", len(recs), o.out)
	return nil
}

// writeRunReport writes the HTML report of a run's or sweep's record when
// --report asks for one.
func writeRunReport(path string, rec *record.Record, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	if err := report.WriteFile(path, []*record.Record{rec}, report.Options{}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "lockbench: report written to %s\n", path)
	return nil
}
