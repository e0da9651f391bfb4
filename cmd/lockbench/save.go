package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// deliverable is where the results of a run go besides stdout.
type deliverable struct {
	record string // the record file
	report string // --report: an HTML page, "" for none
	hlog   string // --hlog: interval logs, "" for none
}

// savedRecord says where a run's record went.
type savedRecord struct {
	path     string // where it is; "" when nowhere
	wanted   string // where it was to go
	writeErr error  // why it is not at wanted
}

// String says where the record is, for the end of a sentence.
func (s savedRecord) String() string {
	switch {
	case s.writeErr == nil:
		return "saved in " + s.path
	case s.path != "":
		return fmt.Sprintf("saved in %s (writing %s failed: %v)", s.path, s.wanted, s.writeErr)
	default:
		return fmt.Sprintf("printed above as JSON on stderr (writing %s failed: %v, and so did a file in %s)", s.wanted, s.writeErr, os.TempDir())
	}
}

// deliver prints the record with show, then saves it, then writes the
// report and interval logs: the table comes first, and a record whose
// file cannot be written (a full disk, a directory removed during the
// run) goes to a fallback file in os.TempDir(), or as a last resort to
// stderr as JSON. Nothing measured is lost. Each write that fails is said
// on stderr; the error returned names them all, with the fallback.
func deliver(rec *record.Record, to deliverable, show func() error, stderr io.Writer) (savedRecord, error) {
	var errs []error
	if err := show(); err != nil {
		fmt.Fprintln(stderr, "lockbench: printing the results failed: "+err.Error())
		errs = append(errs, fmt.Errorf("print the results: %w", err))
	}
	saved := saveRecord(rec, to.record)
	switch {
	case saved.writeErr == nil:
		fmt.Fprintf(stderr, "lockbench: record saved to %s\n", saved.path)
	case saved.path == "":
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
		err := mkdirOne(to.hlog)
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

// saveRecord saves rec to path, else to a new file in os.TempDir().
func saveRecord(rec *record.Record, path string) savedRecord {
	err := record.Save(rec, path)
	if err == nil {
		return savedRecord{path: path, wanted: path}
	}
	fallback, ferr := saveFallback(rec)
	if ferr != nil {
		fallback = ""
	}
	return savedRecord{path: fallback, wanted: path, writeErr: err}
}

// saveFallback saves rec to a new file lockbench-<run-id>-*.json in
// os.TempDir() and returns its path.
func saveFallback(rec *record.Record) (string, error) {
	f, err := os.CreateTemp("", "lockbench-"+rec.RunID+"-*.json")
	if err != nil {
		return "", err
	}
	f.Close()
	if err := record.Save(rec, f.Name()); err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
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
