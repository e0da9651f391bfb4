package results_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/lockbench/lockbench/results"
)

// Save and WriteAtomic create no directory but lockbench's own default
// one: a record for a missing directory fails and leaves nothing behind.
func TestSaveCreatesOnlyTheDefaultDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	missing := filepath.Join(dir, "missing", "deeper", "run.json")
	if err := results.Save(sampleRecord(t), missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Save into a missing directory: %v, want fs.ErrNotExist", err)
	}
	if err := results.WriteAtomic(missing, []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteAtomic into a missing directory: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a directory was created: %v", err)
	}
	if err := results.Save(sampleRecord(t), results.DefaultPath("r1")); err != nil {
		t.Fatalf("Save into the default directory: %v", err)
	}
	if _, err := results.Load(filepath.Join(dir, results.DefaultDir, "r1.json")); err != nil {
		t.Error(err)
	}
}
