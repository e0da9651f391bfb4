package record_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
)

// Save and WriteAtomic create no directory but lockbench's own default
// one: a record for a missing directory fails and leaves nothing behind.
func TestSaveCreatesOnlyTheDefaultDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	missing := filepath.Join(dir, "missing", "deeper", "run.json")
	if err := record.Save(recordtest.Sample(t), missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Save into a missing directory: %v, want fs.ErrNotExist", err)
	}
	if err := record.WriteAtomic(missing, []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteAtomic into a missing directory: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a directory was created: %v", err)
	}
	if err := record.Save(recordtest.Sample(t), record.DefaultPath("r1")); err != nil {
		t.Fatalf("Save into the default directory: %v", err)
	}
	if _, err := record.Load(filepath.Join(dir, record.DefaultDir, "r1.json")); err != nil {
		t.Error(err)
	}
}
