package outputs

import (
	"fmt"
	"os"

	"github.com/lockbench/lockbench/record"
)

// Saved says where a run's record went.
type Saved struct {
	Path   string // where it is; "" when nowhere
	Wanted string // where it was to go
	Err    error  // why it is not at Wanted
}

// String says where the record is, for the end of a sentence; a record
// saved nowhere is said to be printed on stderr, where lockbench prints
// it then.
func (s Saved) String() string {
	switch {
	case s.Err == nil:
		return "saved in " + s.Path
	case s.Path != "":
		return fmt.Sprintf("saved in %s (writing %s failed: %v)", s.Path, s.Wanted, s.Err)
	default:
		return fmt.Sprintf("printed above as JSON on stderr (writing %s failed: %v, and so did a file in %s)", s.Wanted, s.Err, os.TempDir())
	}
}

// SaveRecord saves rec to path, else to a new file in os.TempDir(), and
// says where it went.
func SaveRecord(rec *record.Record, path string) Saved {
	err := record.Save(rec, path)
	if err == nil {
		return Saved{Path: path, Wanted: path}
	}
	fallback, ferr := saveFallback(rec)
	if ferr != nil {
		fallback = ""
	}
	return Saved{Path: fallback, Wanted: path, Err: err}
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
