// Package runnertest holds what the runner's test packages share: running a
// plan and failing the test when a cell could not run, a built-in scenario's
// plan, a fault or a distribution parsed or the test failed, a record's cell
// of a variant. The runner's tests live in three packages (runner's own,
// runner/faultsuite for those that fault their servers, runner/clientsuite
// for those whose checks are timing under client faults) so that go test
// runs them side by side.
package runnertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// Run runs p on a local redis-server that the runner starts itself.
func Run(t *testing.T, p plan.Plan) *record.Record {
	t.Helper()
	return RunOn(t, topologies.Spec{Name: "local"}, p)
}

// RunOn runs p on topo and fails the test when a cell could not run.
func RunOn(t *testing.T, topo topologies.Spec, p plan.Plan) *record.Record {
	t.Helper()
	p.Topology = topo
	rec, err := runner.Run(context.Background(), p, runner.Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := p.WithDefaults().Repeat * max(len(p.Servers), 1) * len(p.Variants) * len(p.Clients); len(rec.Cells) != want {
		t.Fatalf("got %d cells, want %d", len(rec.Cells), want)
	}
	for _, c := range rec.Cells {
		if c.Error != "" {
			t.Fatalf("%s: %s", c.Variant, c.Error)
		}
	}
	return rec
}

// ScenarioPlan is the plan of the built-in scenario name with ov.
func ScenarioPlan(t *testing.T, name string, ov plan.Overrides) plan.Plan {
	t.Helper()
	s, err := plan.LookupScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(&s, ov)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Fault parses a --fault spec.
func Fault(t *testing.T, spec string) faults.Fault {
	t.Helper()
	f, err := faults.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Dist parses a hold or think distribution.
func Dist(t *testing.T, s string) workloads.Distribution {
	t.Helper()
	d, err := workloads.ParseDistribution(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// CellOf is rec's cell of variant; it fails the test when there is none.
func CellOf(t *testing.T, rec *record.Record, variant string) record.Cell {
	t.Helper()
	for _, c := range rec.Cells {
		if c.Variant == variant {
			return c
		}
	}
	t.Fatalf("no cell for %s", variant)
	return record.Cell{}
}

// Agreement fails the test where porcupine's verdict on a cell's history
// (run with runner.HistoryOptions{Check: true}) and the oracle's count
// disagree: a cell's critical sections are not linearizable exactly where
// the oracle counted overlaps.
func Agreement(t *testing.T, cells []record.Cell) {
	t.Helper()
	for _, c := range cells {
		if c.Error != "" || c.History == nil || c.History.Check == nil || c.History.Cut {
			t.Errorf("%s: no whole checked history (error %q, history %+v)", c.Variant, c.Error, c.History)
			continue
		}
		verdict := c.History.Check.Verdict
		if verdict == record.VerdictUnknown || c.History.Check.Error != "" {
			t.Errorf("%s: porcupine gave no verdict: %s %s", c.Variant, verdict, c.History.Check.Error)
			continue
		}
		if overlaps := c.Violations.Overlaps; (overlaps > 0) != (verdict == record.VerdictNotLinearizable) {
			t.Errorf("%s: porcupine says %s, the oracle counted %d overlaps", c.Variant, verdict, overlaps)
		}
	}
}

// WithDrivers is ov with the drivers tests run: drivers/go-lua, built once
// per test binary (drivertest), as drv:go-lua.
func WithDrivers(t *testing.T, ov plan.Overrides) plan.Overrides {
	t.Helper()
	ov.DriversDir = drivertest.DriversDir(t)
	return ov
}

// WithLibraryDrivers is ov with the repository's drivers/ folder, where the
// library drivers (redis-py, node-redlock, sesame-redlock, and those of PyPI
// in virtual environments: redis-py-8, python-redis-lock, pottery-redlock)
// live, as drv:NAME, with Redisson's (Java) when ov.Variants names one. It
// fails the test, naming make drivers, when what they need is missing.
func WithLibraryDrivers(t *testing.T, ov plan.Overrides) plan.Overrides {
	t.Helper()
	root, err := drivertest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ov.DriversDir = filepath.Join(root, "drivers")
	for _, folder := range []string{"node-redlock", "sesame-redlock"} {
		if _, err := os.Stat(filepath.Join(ov.DriversDir, folder, "node_modules")); err != nil {
			t.Fatalf("drivers/%s has no node_modules: run make drivers (npm ci there)", folder)
		}
	}
	// make drivers writes venv/.installed once pip has installed the
	// folder's requirements.txt
	for _, folder := range []string{"redis-py-8", "python-redis-lock", "pottery-redlock"} {
		if _, err := os.Stat(filepath.Join(ov.DriversDir, folder, "venv", ".installed")); err != nil {
			t.Fatalf("drivers/%s has no virtual environment: run make drivers (python3 -m venv, pip install from PyPI)", folder)
		}
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import redis").Run(); err != nil {
		t.Fatalf("/usr/bin/python3 cannot import redis (%v): run make drivers (apt-get install -y python3-redis)", err)
	}
	if slices.ContainsFunc(ov.Variants, func(v string) bool { return strings.HasPrefix(v, "drv:redisson") }) {
		needRedisson(t, ov.DriversDir)
	}
	return ov
}

// RunChecked runs p with every cell's history checked, fails the test when
// a cell could not run or when porcupine disagrees with the oracle on one,
// logs each cell's counts, and returns the cells by variant.
func RunChecked(t *testing.T, p plan.Plan) map[string]record.Cell {
	t.Helper()
	rec, err := runner.Run(context.Background(), p, runner.Options{History: &runner.HistoryOptions{Check: true}})
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]record.Cell{}
	for _, c := range rec.Cells {
		if c.Error != "" {
			t.Fatalf("%s: %s", c.Variant, c.Error)
		}
		verdict := ""
		if c.History != nil && c.History.Check != nil {
			verdict = c.History.Check.Verdict
		}
		t.Logf("%s: %d acquisitions, %d overlaps, %d lost updates, %d lease lost, %d timeouts, %d errors, max unavail %.0fms, verdict %s",
			c.Variant, c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates, c.Violations.LeaseLost, c.Timeouts, c.Errors,
			c.Violations.LongestUnavailableMS, verdict)
		cells[c.Variant] = c
	}
	if len(cells) != len(p.Variants) {
		t.Fatalf("%d cells, want %d", len(cells), len(p.Variants))
	}
	Agreement(t, rec.Cells)
	return cells
}
