package plan

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/faults"
)

// drv:NAME variants are resolved when the plan is built: a name no
// manifest or --driver knows, or a command that cannot run, is bad input
// (driver.ErrBadDriver) in one line naming the flag, before anything runs.
func TestBuildResolvesDrivers(t *testing.T) {
	empty := t.TempDir() // no manifests: only --driver specs
	for _, tc := range []struct {
		name     string
		ov       Overrides
		wantErr  error
		wantText string
	}{
		{"unknown name", Overrides{Variants: []string{"lua-release", "drv:nosuch"}}, driver.ErrBadDriver, `--variants: unknown driver "nosuch"`},
		{"command missing", Overrides{Variants: []string{"drv:gone"}, Drivers: []string{"gone=/nonexistent/driver"}}, driver.ErrBadDriver, `cannot run "/nonexistent/driver"`},
		{"bad spec", Overrides{Variants: []string{"drv:x"}, Drivers: []string{"x"}}, driver.ErrBadDriver, "--driver: "},
		{"step fault", Overrides{Variants: []string{"lua-release", "drv:ok"}, Drivers: []string{"ok=/bin/true"}, Faults: []string{"at=0s step-delay step=between-get-and-del delay=1ms"}},
			faults.ErrBadFault, "runs in a driver process"},
		{"procs", Overrides{Variants: []string{"drv:ok"}, Drivers: []string{"ok=/bin/true"}, DriverProcs: ptr(0)}, ErrInvalid, "--driver-procs: must be at least 1"},
		{"interrupt without a driver", Overrides{Variants: []string{"lua-release"}, InterruptRelease: ptr(true)}, ErrInvalid, "--interrupt-release: interrupts a driver's releasing thread"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.ov.DriversDir = empty
			_, err := Build(nil, tc.ov)
			if !errors.Is(err, tc.wantErr) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.wantText) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line with %q matching %v", err, tc.wantText, tc.wantErr)
			}
		})
	}

	p, err := Build(nil, Overrides{Variants: []string{"lua-release", "drv:ok"}, Drivers: []string{"ok=/bin/true --flag"}, DriversDir: empty, DriverProcs: ptr(3)})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := p.Driver("drv:ok")
	if !ok || m.Name != "ok" || strings.Join(m.Command, " ") != "/bin/true --flag" || p.DriverProcs != 3 {
		t.Errorf("driver %+v (found %v), procs %d", m, ok, p.DriverProcs)
	}
	if _, ok := p.Driver("lua-release"); ok {
		t.Error("lua-release has a driver")
	}
	// a driver process has one clock: a spread skew spreads over several
	if p, err := Build(nil, Overrides{Variants: []string{"drv:ok"}, Drivers: []string{"ok=/bin/true"}, DriversDir: empty, Clients: []int{4},
		ClockSkew: ptr("uniform:-1s..1s")}); err != nil || p.Procs("go") != SkewDriverProcs {
		t.Errorf("a spread skew: %v, procs %d; want %d", err, p.Procs("go"), SkewDriverProcs)
	}
	if p, err := Build(nil, Overrides{Variants: []string{"lua-release"}, DriversDir: empty}); err != nil || len(p.Drivers) != 0 || p.DriverProcs != 0 || p.Procs("go") != DefaultDriverProcs {
		t.Errorf("a plan without drivers: %v, %+v, procs %d (%d)", err, p.Drivers, p.DriverProcs, p.Procs("go"))
	}

	// auto: a process per core where the runtime takes one core at a
	// time (CPython), one where it does not
	if p, err := Build(nil, Overrides{Variants: []string{"drv:ok"}, Drivers: []string{"ok=/bin/true"}, DriversDir: empty, Clients: []int{8},
		DriverProcs: ptr(AutoDriverProcs)}); err != nil || p.Procs("python") != runtime.NumCPU() || p.Procs("node") != 1 || p.Procs("java") != 1 {
		t.Errorf("auto: %v; python %d, node %d, java %d processes", err, p.Procs("python"), p.Procs("node"), p.Procs("java"))
	}
	var v ProcsValue
	if err := v.Set("auto"); err != nil || int(v) != AutoDriverProcs || v.String() != "auto" {
		t.Errorf("--driver-procs auto: %v, %d", err, v)
	}
	if err := v.Set("many"); err == nil {
		t.Error("--driver-procs many was taken")
	}

	// A plan made by hand names its drivers itself.
	hand := Plan{Variants: []string{"drv:ok"}, Clients: []int{1}}.WithDefaults()
	hand.Workload.Duration = 1
	if err := hand.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no manifest") {
		t.Errorf("a plan without the driver's manifest: %v", err)
	}
	hand.Drivers = p.Drivers
	if err := hand.Validate(); err != nil {
		t.Errorf("with it: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
