package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lockbench/lockbench/driver/drivertest"
)

// builtDir holds the lockbench binary that the tests of whole processes
// share (buildBinary); TestMain removes it.
var builtDir string

// builtBinary builds lockbench once for the test binary: every test that
// runs it as a process of its own used to link its own copy.
var builtBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "lockbench-test-bin-*")
	if err != nil {
		return "", err
	}
	builtDir = dir
	bin := filepath.Join(dir, "lockbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

// TestMain removes the shared lockbench binary, and the drivers the
// tests built, after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		_ = os.RemoveAll(builtDir)
	}
	drivertest.Cleanup()
	os.Exit(code)
}
