package outputs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/outputs"
)

// Each check names its flag and says why a path cannot be written; a path
// that can passes.
func TestChecks(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for none
	}{
		{"a file in a directory", outputs.CheckFile("--out", filepath.Join(dir, "run.json")), ""},
		{"a directory for a file", outputs.CheckFile("--out", dir), "--out: " + dir + " is a directory"},
		{"a file in a missing directory", outputs.CheckFile("--report", filepath.Join(missing, "r.html")), "--report: cannot write"},
		{"a directory that exists", outputs.CheckDir("--hlog", dir), ""},
		{"a directory to create", outputs.CheckDir("--hlog", missing), ""},
		{"a directory two levels down", outputs.CheckDir("--hlog", filepath.Join(missing, "hlog")), "only in a parent that exists"},
		{"a file for a directory", outputs.CheckDir("--hlog", file), "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.want == "" && tc.err != nil:
				t.Errorf("%v; want none", tc.err)
			case tc.want != "" && (!errors.Is(tc.err, outputs.ErrUnwritable) || !strings.Contains(tc.err.Error(), tc.want)):
				t.Errorf("%v; want an error wrapping ErrUnwritable saying %q", tc.err, tc.want)
			}
		})
	}
	if err := outputs.MkdirOne(missing); err != nil {
		t.Fatal(err)
	}
	if err := outputs.MkdirOne(missing); err != nil {
		t.Errorf("MkdirOne of a directory that exists: %v", err)
	}
}

// A record of the same run is not replaced; another run's, or another
// file, is.
func TestCheckNoRecordOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, []byte(`{"tool":"lockbench","run_id":"r1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := outputs.CheckNoRecordOf(path, "r1"); err == nil || !strings.Contains(err.Error(), "--overwrite") {
		t.Errorf("the same run: %v; want a refusal naming --overwrite", err)
	}
	if err := outputs.CheckNoRecordOf(path, "r2"); err != nil {
		t.Errorf("another run: %v", err)
	}
	if err := outputs.CheckNoRecordOf(path+".absent", "r1"); err != nil {
		t.Errorf("no file: %v", err)
	}
}
