package conform_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/conform"
	"github.com/lockbench/lockbench/driver/drivertest"
)

func TestMain(m *testing.M) { os.Exit(drivertest.Main(m)) }

// run runs the suite on the driver of m, with a short acquire timeout.
func run(t *testing.T, m driver.Manifest) (conform.Report, error) {
	t.Helper()
	var told []string
	rep, err := conform.Run(context.Background(), conform.Options{
		Driver: m, AcquireTimeout: 500 * time.Millisecond,
		OnResult: func(r conform.Result) { told = append(told, r.Check) },
	})
	if err == nil && !slices.Equal(told, conform.Checks()) {
		t.Errorf("OnResult told of %v, want every check: %v", told, conform.Checks())
	}
	return rep, err
}

// The reference driver passes every check.
func TestGoLuaPasses(t *testing.T) {
	rep, err := run(t, drivertest.GoLua(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		t.Log(r)
		if !r.Passed {
			t.Errorf("%s", r)
		}
	}
	if rep.Failed() != 0 || len(rep.Results) != len(conform.Checks()) || rep.Driver.Name != "go-lua" {
		t.Errorf("%s, driver %+v", rep.Summary(), rep.Driver)
	}
}

// The broken driver (every acquire succeeds) fails exclusion, and with it
// the checks that need a held lock to hold.
func TestNoExclusionFails(t *testing.T) {
	rep, err := run(t, drivertest.Bad(t, "noexclusion"))
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, r := range rep.Results {
		if !r.Passed {
			failed[r.Check] = r.Detail
		}
	}
	if !strings.Contains(failed["exclusion"], "no mutual exclusion") {
		t.Errorf("exclusion: %q, want it failed for no mutual exclusion", failed["exclusion"])
	}
	for _, c := range []string{"foreign-token", "timeout", "in-flight"} {
		if _, ok := failed[c]; !ok {
			t.Errorf("%s passed on a lock that does not exclude", c)
		}
	}
	if !strings.Contains(failed["clock"], "no clock_ok") {
		t.Errorf("clock: %q, want it failed for no clock_ok (the broken driver does not know the request)", failed["clock"])
	}
	for _, c := range []string{"init", "malformed", "exit-on-stdin-close"} {
		if d, ok := failed[c]; ok {
			t.Errorf("%s failed: %s (the broken driver speaks the protocol)", c, d)
		}
	}
}

// A driver that exits during init fails init with its stderr, and every
// later check is not run.
func TestExitDuringInit(t *testing.T) {
	rep, err := run(t, drivertest.Bad(t, "exit-init"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() != len(conform.Checks()) {
		t.Errorf("%s, want every check failed", rep.Summary())
	}
	if d := rep.Results[0].Detail; !strings.Contains(d, "during init") || !strings.Contains(d, "ImportError") {
		t.Errorf("init: %q", d)
	}
	if d := rep.Results[1].Detail; !strings.HasPrefix(d, "not checked") {
		t.Errorf("round-trip: %q, want not checked", d)
	}
}

// A command that cannot run is no check failure but a bad driver.
func TestBadCommand(t *testing.T) {
	_, err := run(t, driver.Manifest{Name: "ghost", Command: []string{"./ghost"}, Dir: t.TempDir()})
	if !errors.Is(err, driver.ErrBadDriver) {
		t.Errorf("%v, want a bad driver", err)
	}
}
