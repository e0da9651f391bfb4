package driver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
)

// Registry versions order by their release numbers, a pre-release before
// its release, in each registry's spelling.
func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"3.46.0", "3.45.1", 1}, {"3.9.0", "3.10.0", -1}, {"8.1", "8.1.0", 0},
		{"5.0.0-beta.2", "5.0.0", -1}, {"5.0.0-beta.2", "4.2.0", 1}, {"5.0.0-beta.1", "5.0.0-beta.2", -1},
		{"8.0.0b1", "8.0.0", -1}, {"8.0.0b2", "8.0.0b1", 1}, {"3.0.0.RC1", "3.0.0", -1}, {"1.4.0", "1.4.0", 0},
	} {
		if got := driver.CompareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// A manifest with a package runs its command in the folder's own
// environment ({env}); At runs it in another, named NAME@VERSION, with the
// package's own command where it has one; its supports range refuses a
// version outside it as unsupported, naming both.
func TestManifestPackage(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "lib")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `[{"name":"lib","command":["{env}/venv/bin/python","driver.py"],
	  "package":{"registry":"pypi","name":"redis","version":"8.1.0","supports":">=4.0.0 <9","env":"pinned"}},
	 {"name":"sys","command":["/usr/bin/python3","driver.py"],
	  "package":{"registry":"pypi","name":"redis","version":"4.3.4","command":["{env}/venv/bin/python","driver.py"]}}]`
	if err := os.WriteFile(filepath.Join(folder, driver.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := driver.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	lib, sys := ms[0], ms[1]
	if want := filepath.Join(folder, "pinned", "venv/bin/python"); lib.Command[0] != want || lib.EnvDir != filepath.Join(folder, "pinned") {
		t.Errorf("pinned command %q in %q, want %q", lib.Command, lib.EnvDir, want)
	}
	at := lib.At("8.2.0", "/cache/redis/8.2.0")
	if at.Name != "lib@8.2.0" || at.Version != "8.2.0" || at.Command[0] != "/cache/redis/8.2.0/venv/bin/python" || at.EnvDir != "/cache/redis/8.2.0" {
		t.Errorf("At: %s %s %q in %s", at.Name, at.Version, at.Command, at.EnvDir)
	}
	if c := sys.At("8.2.0", "/cache/x").Command; c[0] != "/cache/x/venv/bin/python" {
		t.Errorf("an installed version of a system library runs %q, want the package's command", c)
	}
	if c := sys.At("4.3.4", sys.PinnedEnv()).Command; c[0] != "/usr/bin/python3" {
		t.Errorf("the pinned version of a system library runs %q, want the manifest's command", c)
	}
	if err := lib.Supported("8.2.0"); err != nil {
		t.Errorf("8.2.0 within >=4.0.0 <9: %v", err)
	}
	for _, v := range []string{"3.5.2", "9.0.0"} {
		err := lib.Supported(v)
		if !errors.Is(err, driver.ErrUnsupported) || !strings.Contains(err.Error(), v) || !strings.Contains(err.Error(), ">=4.0.0 <9") {
			t.Errorf("Supported(%s): %v, want unsupported naming the version and the range", v, err)
		}
	}
	if err := driver.CheckRef(ms[0], ""); !errors.Is(err, driver.ErrBadDriver) {
		t.Errorf("an empty version: %v, want a bad driver", err)
	}
	if err := driver.CheckRef(drivertest.GoLua(t), "1.0"); !errors.Is(err, driver.ErrBadDriver) || !strings.Contains(err.Error(), "no registry package") {
		t.Errorf("a version of a driver without a package: %v", err)
	}
}

// A manifest whose package is not one lockbench can install is refused
// when the manifest is read, naming the file.
func TestManifestBadPackage(t *testing.T) {
	for _, pkg := range []string{`{"registry":"cran","name":"x","version":"1"}`, `{"registry":"npm","name":"x"}`,
		`{"registry":"npm","name":"x","version":"1","supports":"~1.2"}`} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "d", driver.ManifestFile)
		if err := os.WriteFile(path, []byte(`[{"name":"d","command":["true"],"package":`+pkg+`}]`), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := driver.Load(dir); !errors.Is(err, driver.ErrBadDriver) || !strings.Contains(err.Error(), path) {
			t.Errorf("package %s: %v, want a bad driver naming %s", pkg, err, path)
		}
	}
}

// The version a driver says it loaded is held to the one asked for, and
// to its package's range: go-lua as a stand-in for a library at a version.
func TestStartChecksVersion(t *testing.T) {
	m := drivertest.GoLua(t)
	p := start(t, m, config(t))
	loaded := p.Info().Version
	m.Package = &driver.Package{Registry: "npm", Name: "go-lua", Version: loaded, Supports: ">=99"}
	if _, err := driver.Start(context.Background(), m, config(t)); !errors.Is(err, driver.ErrUnsupported) || !strings.Contains(err.Error(), "not "+loaded) {
		t.Errorf("a version outside the range: %v, want unsupported naming %s", err, loaded)
	}
	m.Package.Supports = ""
	asked := m.At("0.0.1-other", m.Dir)
	if _, err := driver.Start(context.Background(), asked, config(t)); !errors.Is(err, driver.ErrBadDriver) || !strings.Contains(err.Error(), "loaded go-lua "+loaded+", not 0.0.1-other") {
		t.Errorf("a driver that loads another version than asked: %v", err)
	}
}
