// Package drivertest builds the drivers tests run (the reference driver
// drivers/go-lua and the broken drivers of driver/testdata/baddriver),
// once per test binary, and lays them out as lockbench finds them.
package drivertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// The packages of the drivers, from the module's root.
const (
	GoLuaPackage     = "drivers/go-lua"
	BadDriverPackage = "driver/testdata/baddriver"
)

var (
	mu    sync.Mutex
	dir   string            // holds every binary built, removed by Cleanup
	built map[string]string // package -> binary
)

// Build builds the main package pkg (a path from the module's root) once
// per test binary and returns its binary's path.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if bin, ok := built[pkg]; ok {
		return bin
	}
	root, err := ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "lockbench-drivers-*"); err != nil {
			tb.Fatal(err)
		}
		built = map[string]string{}
	}
	bin := filepath.Join(dir, strings.ReplaceAll(pkg, "/", "_"))
	cmd := exec.Command("go", "build", "-o", bin, "./"+pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./%s: %v\n%s", pkg, err, out)
	}
	built[pkg] = bin
	return bin
}

// ModuleRoot is the directory of lockbench's go.mod.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside lockbench's module")
	}
	return filepath.Dir(gomod), nil
}

// Cleanup removes the binaries Build built. A TestMain calls it after the
// tests (Main does).
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
		dir, built = "", nil
	}
}

// Main runs the tests with topotest.Main's leak check, then Cleanup.
func Main(m *testing.M) int {
	code := topotest.Main(m)
	Cleanup()
	return code
}

// DriversDir lays out a drivers folder as the repository's after make
// drivers: go-lua/ with the repository's driver.json and the go-lua binary
// built. It returns the folder (for --drivers or $LOCKBENCH_DRIVERS).
func DriversDir(tb testing.TB) string {
	tb.Helper()
	bin := Build(tb, GoLuaPackage)
	root, err := ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	drivers := tb.TempDir()
	folder := filepath.Join(drivers, "go-lua")
	manifest, err := os.ReadFile(filepath.Join(root, GoLuaPackage, driver.ManifestFile))
	if err == nil {
		err = os.Mkdir(folder, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(folder, driver.ManifestFile), manifest, 0o644)
	}
	if err == nil {
		err = os.Symlink(bin, filepath.Join(folder, "go-lua"))
	}
	if err != nil {
		tb.Fatal(err)
	}
	return drivers
}

// GoLua is the manifest of the go-lua driver, built.
func GoLua(tb testing.TB) driver.Manifest {
	tb.Helper()
	ms, err := driver.Load(DriversDir(tb))
	if err != nil || len(ms) != 1 {
		tb.Fatalf("the go-lua manifest: %v (%d drivers)", err, len(ms))
	}
	return ms[0]
}

// Bad is the manifest of the broken driver in mode (see baddriver's
// doc), its extra arguments after the mode.
func Bad(tb testing.TB, mode string, args ...string) driver.Manifest {
	tb.Helper()
	bin := Build(tb, BadDriverPackage)
	return driver.Manifest{Name: "bad-" + mode, Language: "go", Command: append([]string{bin, mode}, args...), Dir: tb.TempDir()}
}

// Repository is the manifests of the repository's own drivers/ folder, the
// drivers make drivers installs.
func Repository(tb testing.TB) []driver.Manifest {
	tb.Helper()
	root, err := ModuleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	known, err := driver.Load(filepath.Join(root, "drivers"))
	if err != nil {
		tb.Fatal(err)
	}
	return known
}
