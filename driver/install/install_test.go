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
	for _, ref := range []string{"redis-py-8@0.0.1", "node-redlock@0.0.1", "redisson@0.0.1"} {
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
