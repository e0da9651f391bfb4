// Package install puts a driver's library at any published version into an
// environment of its own (a venv, an exact npm install, a Maven classpath,
// a Cargo build of the driver against exactly that crate) in the user's
// cache directory, from the library's registry, and resolves
// drv:NAME@VERSION to the driver run in it. An environment is built once,
// under a lock, and reused offline after: the registry is asked only for a
// version not installed yet. It is the version axis of package driver; the
// registries' clients are in registry.go, each registry's installer in a
// file of its own.
package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/inputerr"
)

// DirEnv names the environment variable that moves the cache of library
// environments (default: the user's cache directory's lockbench/drivers,
// $XDG_CACHE_HOME or ~/.cache on Linux).
const DirEnv = "LOCKBENCH_DRIVER_CACHE"

// marker is the file an environment's install writes last.
const marker = ".lockbench-installed"

// ErrNoVersion is the registry's answer to a version it does not have: a
// bad driver reference (driver.ErrBadDriver).
var ErrNoVersion = fmt.Errorf("%w: no such version", driver.ErrBadDriver)

// Dir is where the library environments are: $LOCKBENCH_DRIVER_CACHE, or
// lockbench/drivers in the user's cache directory.
func Dir() (string, error) {
	if dir := os.Getenv(DirEnv); dir != "" {
		return dir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("install: no cache directory for library environments (set %s): %w", DirEnv, err)
	}
	return filepath.Join(cache, "lockbench", "drivers"), nil
}

// EnvDir is the environment of pkg at version: one per registry, package,
// version and set of packages pinned beside it; for a crate, whose
// environment is the driver built against it, one per state of the
// driver's sources too.
func EnvDir(pkg *driver.Package, version string) (string, error) {
	root, err := Dir()
	if err != nil {
		return "", err
	}
	leaf := version
	if len(pkg.With) > 0 {
		sum := sha256.Sum256([]byte(strings.Join(pkg.With, "\n")))
		leaf += "-" + hex.EncodeToString(sum[:4])
	}
	if pkg.Registry == "crates" {
		if sum := cratesSourceSum(pkg); sum != "" {
			leaf += "-" + sum
		}
	}
	return filepath.Join(root, pkg.Registry, pkgDir(pkg), leaf), nil
}

// Installed reports whether the environment of pkg at version is built.
func Installed(pkg *driver.Package, version string) bool {
	dir, err := EnvDir(pkg, version)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, marker))
	return err == nil
}

// Find is driver.Find for a reference NAME or NAME@VERSION: with a
// version, the driver NAME run at that version of its library, installed
// first when it is not (a progress line to progress). A version the
// registry does not have is bad input naming the nearest it has.
func Find(ctx context.Context, known []driver.Manifest, ref string, progress io.Writer) (driver.Manifest, error) {
	name, version := driver.SplitRef(ref)
	m, err := driver.Find(known, name)
	if err != nil || !strings.Contains(ref, "@") {
		return m, err
	}
	if err := driver.CheckRef(m, version); err != nil {
		return driver.Manifest{}, err
	}
	return Ensure(ctx, m, version, progress)
}

// Ensure is m run at version of its library: the folder's own
// environment for the version it pins, else the cached one, installed
// from the registry when missing.
func Ensure(ctx context.Context, m driver.Manifest, version string, progress io.Writer) (driver.Manifest, error) {
	if version == m.Package.Version {
		return m.At(version, m.PinnedEnv()), nil
	}
	dir, err := EnvDir(m.Package, version)
	if err != nil {
		return driver.Manifest{}, err
	}
	if Installed(m.Package, version) {
		return m.At(version, dir), nil
	}
	if err := install(ctx, m.Package, version, dir, progress); err != nil {
		return driver.Manifest{}, fmt.Errorf("driver %s@%s: %w", m.Name, version, err)
	}
	return m.At(version, dir), nil
}

// Install installs pkg at version (lockbench drivers install), unless it
// is installed already; it returns the environment's directory.
func Install(ctx context.Context, pkg *driver.Package, version string, progress io.Writer) (string, error) {
	dir, err := EnvDir(pkg, version)
	if err != nil {
		return "", err
	}
	if Installed(pkg, version) {
		return dir, nil
	}
	return dir, install(ctx, pkg, version, dir, progress)
}

// install checks that the registry has version, then builds its
// environment in dir under an exclusive lock, the marker written last; a
// dir left half built by an install that died is built again.
func install(ctx context.Context, pkg *driver.Package, version, dir string, progress io.Writer) error {
	reg := registryOf(pkg.Registry)
	versions, err := reg.versions(ctx, pkg.Name)
	if err != nil {
		return err
	}
	if !slices.Contains(versions, version) {
		return inputerr.Errorf(ErrNoVersion, "%s has no version %s on %s (nearest: %s)", pkg.Name, version, reg.title, strings.Join(nearest(versions, version, 4), ", "))
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	unlock, err := lock(dir + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
		return nil // another process installed it while this one waited
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	start := time.Now()
	fmt.Fprintf(progress, "drivers: installing %s %s from %s into %s\n", pkg.Name, version, reg.title, dir)
	if err := reg.install(ctx, pkg, version, dir); err != nil {
		return fmt.Errorf("install %s %s from %s: %w", pkg.Name, version, reg.title, err)
	}
	if err := os.WriteFile(filepath.Join(dir, marker), []byte(pkg.Name+" "+version+"\n"), 0o644); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	fmt.Fprintf(progress, "drivers: installed %s %s in %.1f s\n", pkg.Name, version, time.Since(start).Seconds())
	return nil
}

// lock takes an exclusive lock on path, created when missing, until the
// function it returns is called.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("install: lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// nearest is up to n of versions nearest to v in their order: the ones
// just before it and just after.
func nearest(versions []string, v string, n int) []string {
	if len(versions) == 0 {
		return []string{"none"}
	}
	sorted := slices.Clone(versions)
	slices.SortFunc(sorted, driver.CompareVersions)
	i, _ := slices.BinarySearchFunc(sorted, v, driver.CompareVersions)
	return sorted[max(i-n/2, 0):min(i+n/2, len(sorted))]
}

// Versions are the versions of pkg installed in the cache, sorted.
func Versions(pkg *driver.Package) []string {
	root, err := Dir()
	if err != nil {
		return nil
	}
	var vs []string
	entries, _ := os.ReadDir(filepath.Join(root, pkg.Registry, pkgDir(pkg)))
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(root, pkg.Registry, pkgDir(pkg), e.Name(), marker))
		if name, v, ok := strings.Cut(strings.TrimSpace(string(data)), " "); err == nil && ok && name == pkg.Name && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.SortFunc(vs, driver.CompareVersions)
	return vs
}

// pkgDir is the cache's folder of pkg's environments.
func pkgDir(pkg *driver.Package) string {
	return strings.NewReplacer("/", "_", ":", "_", "@", "").Replace(pkg.Name)
}
