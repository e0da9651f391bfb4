package outputs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/record"
)

// ErrUnwritable is wrapped by the error of every check: the path cannot
// be written (or would replace a record). The message alone names the
// flag and says why.
var ErrUnwritable = errors.New("outputs: cannot be written")

// checked is err as a check's error; nil for none.
func checked(err error) error {
	if err == nil {
		return nil
	}
	return inputerr.New(ErrUnwritable, err)
}

// CheckFile checks that the file path, given with flag, can be written:
// it is no directory, and its directory exists and takes a new file.
func CheckFile(flag, path string) error { return checked(checkFile(flag, path)) }

// CheckDir checks a directory lockbench writes into and creates when
// missing (--hlog): it exists and takes new files, or its parent does.
func CheckDir(flag, dir string) error { return checked(checkDir(flag, dir)) }

// CheckDefaultDir checks that results/runs exists and takes new files, or
// that it can be created in the nearest directory that exists.
func CheckDefaultDir() error { return checked(checkDefaultDir()) }

// CheckNoRecordOf refuses a path that already holds a record of run runID
// (of any schema): a second run of one id would silently replace the
// first's measurements.
func CheckNoRecordOf(path, runID string) error { return checked(checkNoRecordOf(path, runID)) }

// checkFile is CheckFile before its error is wrapped.
func checkFile(flag, path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("%s: %s is a directory; give a file", flag, path)
	}
	if err := writableDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: cannot write %s: %w", flag, path, err)
	}
	return nil
}

// checkDir is CheckDir before its error is wrapped.
func checkDir(flag, dir string) error {
	info, err := os.Stat(dir)
	switch {
	case err == nil && !info.IsDir():
		return fmt.Errorf("%s: %s is not a directory", flag, dir)
	case err == nil:
		if err := writableDir(dir); err != nil {
			return fmt.Errorf("%s: cannot write into %s: %w", flag, dir, err)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", flag, err)
	}
	if err := writableDir(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("%s: cannot create %s: %w (lockbench creates the directory itself only in a parent that exists)", flag, dir, err)
	}
	return nil
}

// checkDefaultDir is CheckDefaultDir before its error is wrapped.
func checkDefaultDir() error {
	dir := record.DefaultDir
	for {
		info, err := os.Stat(dir)
		if err == nil && info.IsDir() {
			break
		}
		if err == nil || !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return fmt.Errorf("--out: cannot save the record in %s: %v; give --out FILE", record.DefaultDir, err)
		}
		dir = filepath.Dir(dir)
	}
	if err := writableDir(dir); err != nil {
		return fmt.Errorf("--out: cannot save the record in %s: %w; give --out FILE", record.DefaultDir, err)
	}
	return nil
}

// MkdirOne creates the --hlog directory when missing, in a parent that
// must exist (never a chain of directories).
func MkdirOne(dir string) error {
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

// checkNoRecordOf is CheckNoRecordOf before its error is wrapped.
func checkNoRecordOf(path, runID string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil // nothing there (or unreadable, which the check of the directory reports)
	}
	var head struct {
		Tool  string `json:"tool"`
		RunID string `json:"run_id"`
	}
	if json.Unmarshal(data, &head) == nil && head.Tool == "lockbench" && head.RunID == runID {
		return fmt.Errorf("--out: %s already holds the record of run %s; give --overwrite to replace it, or another --run-id", path, runID)
	}
	return nil
}
