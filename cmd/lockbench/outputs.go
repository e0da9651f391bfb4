package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/workloads"
)

// Every file a command writes is checked before it starts any load, so
// that a run never measures for minutes and then fails to keep it: the
// directory must exist and take a new file. lockbench creates no directory
// but its own default results/runs/ and the --hlog directory, one level,
// in a parent that exists.

// preflight checks, before anything starts, what could fail only after
// the load: that the client count fits in memory, that every output can
// be written, and that the record of a run of the same id is not
// replaced without --overwrite. It gives the run its id if it has none.
func (o *runOptions) preflight(p plan.Plan) error {
	shard, err := o.sharding(p)
	if err != nil {
		return err
	}
	if err := checkMemory(p, shard); err != nil {
		return err
	}
	if o.runID == "" {
		o.runID = runner.NewRunID()
	}
	if err := o.checkOutputs(); err != nil {
		return err
	}
	return checkNoRecordOf(recordPath(o.out, o.runID, shard), o.runID, o.overwrite)
}

// checkOutputs checks --out (or the default results/runs/), --report and
// --hlog before any load.
func (o runOptions) checkOutputs() error {
	check := checkDefaultDir
	if o.out != "" {
		check = func() error { return checkOutFile("--out", o.out) }
	}
	if err := check(); err != nil {
		return err
	}
	if o.report != "" {
		if err := checkOutFile("--report", o.report); err != nil {
			return err
		}
	}
	if o.hlog != "" {
		return checkOutDir("--hlog", o.hlog)
	}
	return nil
}

// checkOutFile checks that the file path, given with flag, can be
// written: it is no directory, and its directory exists and takes a new
// file.
func checkOutFile(flag, path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return usagef("%s: %s is a directory; give a file", flag, path)
	}
	if err := writableDir(filepath.Dir(path)); err != nil {
		return usagef("%s: cannot write %s: %w", flag, path, err)
	}
	return nil
}

// checkOutDir checks the directory of --hlog: it exists and takes new
// files, or its parent does and lockbench creates it there.
func checkOutDir(flag, dir string) error {
	info, err := os.Stat(dir)
	switch {
	case err == nil && !info.IsDir():
		return usagef("%s: %s is not a directory", flag, dir)
	case err == nil:
		if err := writableDir(dir); err != nil {
			return usagef("%s: cannot write into %s: %w", flag, dir, err)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return usagef("%s: %w", flag, err)
	}
	if err := writableDir(filepath.Dir(dir)); err != nil {
		return usagef("%s: cannot create %s: %w (lockbench creates the directory itself only in a parent that exists)", flag, dir, err)
	}
	return nil
}

// checkDefaultDir checks that results/runs exists and takes new files, or
// that it can be created in the nearest directory that exists.
func checkDefaultDir() error {
	dir := record.DefaultDir
	for {
		info, err := os.Stat(dir)
		if err == nil && info.IsDir() {
			break
		}
		if err == nil || !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return usagef("--out: cannot save the record in %s: %v; give --out FILE", record.DefaultDir, err)
		}
		dir = filepath.Dir(dir)
	}
	if err := writableDir(dir); err != nil {
		return usagef("--out: cannot save the record in %s: %w; give --out FILE", record.DefaultDir, err)
	}
	return nil
}

// mkdirOne creates the --hlog directory when missing, in a parent that
// must exist (never a chain of directories).
func mkdirOne(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// writableDir reports why dir does not take a new file: it is missing, no
// directory, or refuses one (read-only, no permission). It creates and
// removes an empty hidden file to know.
func writableDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist (lockbench creates none but its own %s)", dir, record.DefaultDir)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	probe, err := os.CreateTemp(dir, ".lockbench-probe-*")
	if err != nil {
		return fmt.Errorf("directory %s does not take a new file: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// recordPath is where the record of run runID goes: out, by default
// results/runs/<run-id>.json (<run-id>.shard-i-of-N.json for a shard).
func recordPath(out, runID string, shard *workloads.Shard) string {
	switch {
	case out != "":
		return out
	case shard != nil:
		return record.DefaultPath(fmt.Sprintf("%s.shard-%d-of-%d", runID, shard.Index, shard.Count))
	default:
		return record.DefaultPath(runID)
	}
}

// checkNoRecordOf refuses, unless overwrite, a path that already holds a
// record of run runID (of any schema): a second run of one id would
// silently replace the first's measurements.
func checkNoRecordOf(path, runID string, overwrite bool) error {
	if overwrite {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil // nothing there (or unreadable, which the check of the directory reports)
	}
	var head struct {
		Tool  string `json:"tool"`
		RunID string `json:"run_id"`
	}
	if json.Unmarshal(data, &head) == nil && head.Tool == "lockbench" && head.RunID == runID {
		return usagef("--out: %s already holds the record of run %s; give --overwrite to replace it, or another --run-id", path, runID)
	}
	return nil
}
