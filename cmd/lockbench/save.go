package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lockbench/lockbench/outputs"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// deliverable is where the results of a run go besides stdout.
type deliverable struct {
	record string // the record file
	report string // --report: an HTML page, "" for none
	hlog   string // --hlog: interval logs, "" for none
}

// deliver prints the record with render, then saves it, then writes the
// report and interval logs: the table comes first, and a record whose
// file cannot be written (a full disk, a directory removed during the
// run) goes to a fallback file in os.TempDir(), or as a last resort to
// stderr as JSON. Nothing measured is lost. Each write that fails is said
// on stderr; the error returned names them all, with the fallback.
func deliver(rec *record.Record, to deliverable, show func() error, stderr io.Writer) (outputs.Saved, error) {
	var errs []error
	if err := show(); err != nil {
		fmt.Fprintln(stderr, "lockbench: printing the results failed: "+err.Error())
		errs = append(errs, fmt.Errorf("print the results: %w", err))
	}
	saved := outputs.SaveRecord(rec, to.record)
	switch {
	case saved.Err == nil:
		fmt.Fprintf(stderr, "lockbench: record saved to %s\n", saved.Path)
	case saved.Path == "":
		fmt.Fprintln(stderr, "lockbench: the record could not be written anywhere; here it is:")
		_ = render.Render(stderr, rec, "json")
		errs = append(errs, fmt.Errorf("--out: the record is %s", saved))
	default:
		errs = append(errs, fmt.Errorf("--out: the record is %s", saved))
	}
	if err := writeRunReport(to.report, rec, stderr); err != nil {
		fmt.Fprintln(stderr, "lockbench: --report: "+err.Error())
		errs = append(errs, fmt.Errorf("--report: %w", err))
	}
	if to.hlog != "" {
		err := outputs.MkdirOne(to.hlog)
		var paths []string
		if err == nil {
			paths, err = record.WriteIntervalLogs(to.hlog, rec)
		}
		if err != nil {
			fmt.Fprintln(stderr, "lockbench: --hlog: "+err.Error())
			errs = append(errs, fmt.Errorf("--hlog: %w", err))
		} else {
			fmt.Fprintf(stderr, "lockbench: interval logs: %s\n", strings.Join(paths, " "))
		}
	}
	return saved, errors.Join(errs...)
}

// measuredAny reports whether a cell of rec measured anything: a record
// whose every cell failed (or that has none) holds no measurement.
func measuredAny(rec *record.Record) bool {
	for _, c := range rec.Cells {
		if c.Error == "" {
			return true
		}
	}
	return false
}
