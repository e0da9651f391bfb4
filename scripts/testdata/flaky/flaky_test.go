// Package flaky is the self-test of make test's rerun (scripts/check-rerun.sh):
// its tests fail on their first run only, and the check asserts that the rerun
// names them under "flaky:". A module of its own, in a testdata directory, so
// that go test ./... from lockbench's root never runs it.
package flaky

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// firstRun reports whether this is the first run of the test named name in
// the directory $FLAKY_MARK, leaving a mark there for the next run.
func firstRun(t *testing.T, name string) bool {
	t.Helper()
	dir := os.Getenv("FLAKY_MARK")
	if dir == "" {
		t.Fatal("FLAKY_MARK is not set: this module runs through scripts/check-rerun.sh")
	}
	mark := filepath.Join(dir, name)
	_, err := os.Stat(mark)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.WriteFile(mark, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	case err != nil:
		t.Fatal(err)
	}
	return false
}

func TestFailsFirstRun(t *testing.T) {
	if firstRun(t, "TestFailsFirstRun") {
		t.Fatal("the first run fails on purpose; the rerun passes")
	}
}

// A subtest is rerun alone (gotestsum -run '^TestSubtest$/^fails-first-run$'),
// and named alone, without its parent, under "flaky:".
func TestSubtest(t *testing.T) {
	t.Run("passes", func(t *testing.T) {})
	t.Run("fails-first-run", func(t *testing.T) {
		if firstRun(t, "TestSubtest-fails-first-run") {
			t.Fatal("the first run fails on purpose; the rerun passes")
		}
	})
}

// Fails on every run when FLAKY_ALWAYS is set: the rerun does not save it, so
// the run fails and the test is not named flaky.
func TestFailsEveryRunWhenAsked(t *testing.T) {
	if os.Getenv("FLAKY_ALWAYS") != "" {
		t.Fatal("fails on every run (FLAKY_ALWAYS is set)")
	}
}

func TestPasses(t *testing.T) {}
