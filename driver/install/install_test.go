package install

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
)

// The nearest versions are those just below and above the one asked for,
// in version order (not the registry's).
func TestNearest(t *testing.T) {
	vs := []string{"3.46.0", "3.9.0", "3.45.1", "3.10.0", "4.0.0", "3.45.0"}
	if got := nearest(vs, "3.45.5", 4); !slices.Equal(got, []string{"3.45.0", "3.45.1", "3.46.0", "4.0.0"}) {
		t.Errorf("nearest 3.45.5: %v", got)
	}
	if got := nearest(vs, "0.0.1", 4); !slices.Equal(got, []string{"3.9.0", "3.10.0"}) {
		t.Errorf("nearest 0.0.1: %v", got)
	}
}

// A version the registry does not publish is bad input, in one line,
// naming it and the nearest it has, for each registry the drivers use;
// nothing is installed. The registries are the real ones.
func TestFindUnpublishedVersion(t *testing.T) {
	t.Setenv(DirEnv, t.TempDir())
	root, err := drivertest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	known, err := driver.Load(filepath.Join(root, "drivers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"redis-py-8@0.0.1", "node-redlock@0.0.1", "redisson@0.0.1", "rslock@0.0.1"} {
		var progress strings.Builder
		_, err := Find(context.Background(), known, ref, &progress)
		if !errors.Is(err, driver.ErrBadDriver) || !errors.Is(err, ErrNoVersion) || !strings.Contains(err.Error(), "no version 0.0.1") ||
			!strings.Contains(err.Error(), "nearest: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line: no such version, the nearest", ref, err)
		}
		if progress.Len() != 0 {
			t.Errorf("%s: an install began: %s", ref, progress.String())
		}
	}
}

// A crate's index file is where Cargo looks for it, and its versions are
// those not yanked; a crate's environment is its driver's Cargo project
// with the dependency set to exactly the version, its other lines as they
// were. None of it asks a registry.
func TestCrates(t *testing.T) {
	for name, path := range map[string]string{"a": "1/a", "ab": "2/ab", "abc": "3/a/abc", "rslock": "rs/lo/rslock", "Serde_JSON": "se/rd/serde_json"} {
		if got := cratesIndexPath(name); got != path {
			t.Errorf("index path of %s: %s, want %s", name, got, path)
		}
	}
	index := `{"name":"rslock","vers":"0.1.0","deps":[],"cksum":"00","features":{},"yanked":false}
{"name":"rslock","vers":"0.2.0","deps":[],"cksum":"01","features":{},"yanked":true}
{"name":"rslock","vers":"0.10.0","deps":[],"cksum":"02","features":{},"yanked":false}
`
	if vs, err := cratesIndexVersions([]byte(index)); err != nil || !slices.Equal(vs, []string{"0.1.0", "0.10.0"}) {
		t.Errorf("index versions: %v, %v; want 0.1.0 and 0.10.0, the yanked 0.2.0 left out", vs, err)
	}
	manifest := `[package]
name = "rslock-driver"

[dependencies]
rslock = { version = "=0.10.0", default-features = false, features = ["tokio-comp"] }
rslock-extra = "=1.0.0"
tokio = "=1.54.1"
`
	got, err := pinCrate([]byte(manifest), "rslock", "0.9.1")
	if want := strings.Replace(manifest, `"=0.10.0"`, `"=0.9.1"`, 1); err != nil || string(got) != want {
		t.Errorf("pinned to 0.9.1 (%v):\n%s", err, got)
	}
	if got, err := pinCrate([]byte(manifest), "tokio", "1.50.0"); err != nil || !strings.Contains(string(got), `tokio = "=1.50.0"`) {
		t.Errorf("pinned tokio to 1.50.0 (%v):\n%s", err, got)
	}
	if _, err := pinCrate([]byte(manifest), "redis", "1.0.0"); err == nil {
		t.Error("pinned a crate the manifest does not depend on")
	}
}
