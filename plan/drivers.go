package plan

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/install"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/inputerr"
)

// DriverPrefix starts a variant that is a lock driver's: drv:NAME runs the
// lock of the driver NAME (package driver: a manifest drivers/*/driver.json,
// or --driver NAME=CMD) beside lockbench's own variants, under the same
// oracle.
const DriverPrefix = "drv:"

// DefaultDriverProcs is how many driver processes a driver cell's clients
// are spread over.
const DefaultDriverProcs = 1

// SkewDriverProcs is how many driver processes a driver cell has by
// default under a spread clock skew (uniform:MIN..MAX): a driver process
// has one clock, which its clients share, so the skew spreads over this
// many clocks (more JVMs than this started at once on two cores miss
// init's 30 s).
const SkewDriverProcs = 8

// AutoDriverProcs is DriverProcs for --driver-procs auto: a process per
// core for a driver whose runtime runs its clients on one core at a time
// (OneCoreLanguages), one otherwise.
const AutoDriverProcs = -1

// OneCoreLanguages are the driver languages whose runtime serves all of a
// process's clients on one core at a time: CPython, whose threads take
// turns under its global interpreter lock. (Node's one event loop is one
// core too, but a second process costs it more CPU per acquisition than
// it frees on two cores: docs/drivers.md, "What the protocol costs".)
var OneCoreLanguages = []string{"python"}

// Procs is how many driver processes a driver cell of p spreads its
// clients over (at most one per client) for a driver in language:
// DriverProcs; under AutoDriverProcs the machine's cores for a language
// of OneCoreLanguages, else DefaultDriverProcs; when it is zero
// SkewDriverProcs under a spread clock skew and DefaultDriverProcs
// otherwise.
func (p Plan) Procs(language string) int {
	switch skew := p.Workload.Clocks.Skew; {
	case p.DriverProcs == AutoDriverProcs && slices.Contains(OneCoreLanguages, language):
		return runtime.NumCPU()
	case p.DriverProcs == AutoDriverProcs:
		return DefaultDriverProcs
	case p.DriverProcs > 0:
		return p.DriverProcs
	case skew.Min != skew.Max:
		return SkewDriverProcs
	}
	return DefaultDriverProcs
}

// DriverName is the driver a variant names, and whether it names one.
func DriverName(variant string) (string, bool) {
	return strings.CutPrefix(variant, DriverPrefix)
}

// Driver is the manifest of the driver of variant drv:NAME among p's, and
// whether p has it.
func (p Plan) Driver(variant string) (driver.Manifest, bool) {
	name, ok := DriverName(variant)
	if !ok {
		return driver.Manifest{}, false
	}
	for _, m := range p.Drivers {
		if m.Name == name {
			return m, true
		}
	}
	return driver.Manifest{}, false
}

// hasDrivers reports whether any of p's variants is a driver's.
func (p Plan) hasDrivers() bool {
	for _, v := range p.Variants {
		if _, ok := DriverName(v); ok {
			return true
		}
	}
	return false
}

// drivers resolves the drv:NAME and drv:NAME@VERSION variants of p: the
// drivers the manifests under o.DriversDir (driver.DefaultDir when "") and
// the specs of --driver know, each at the version asked (installed on
// first use) and checked to run. A name none knows, a version its
// registry lacks, or a command that cannot run, is an error wrapping
// driver.ErrBadDriver, in one line.
func (b *builder) drivers(p Plan, o Overrides) []driver.Manifest {
	if !p.hasDrivers() || b.err != nil {
		return nil
	}
	dir := cmp.Or(o.DriversDir, driver.DefaultDir())
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	known, err := driver.Known(dir, o.Drivers)
	if err != nil {
		b.failOn("--driver", err)
		return nil
	}
	var ms []driver.Manifest
	for _, v := range p.Variants {
		name, ok := DriverName(v)
		if !ok {
			continue
		}
		m, err := install.Find(context.Background(), known, name, progress)
		if err == nil && m.Name != name { // Find takes a command too; a variant takes a name
			err = inputerr.Errorf(driver.ErrBadDriver, "%q is no driver's name; give a command with --driver NAME=CMD", name)
		}
		if err == nil {
			_, err = m.Program()
		}
		if err != nil {
			b.failOn("--variants", err)
			return nil
		}
		ms = append(ms, m)
	}
	return ms
}

// checkDrivers checks the driver variants of p: each has its manifest, the
// processes are at least one, and no step fault is asked of them — a step
// fault acts at a variant's named steps inside lockbench, and a driver's
// lock runs in a process of its own, which has none.
func (p Plan) checkDrivers() error {
	if p.DriverProcs < 0 && p.DriverProcs != AutoDriverProcs {
		return fmt.Errorf("%w: --driver-procs must be at least 1, or auto (got %d)", ErrInvalid, p.DriverProcs)
	}
	for _, v := range p.Variants {
		if _, ok := DriverName(v); !ok {
			continue
		}
		if _, ok := p.Driver(v); !ok {
			return fmt.Errorf("%w: %s: the plan has no manifest of that driver", ErrInvalid, v)
		}
		for _, f := range p.Faults {
			if f.Kind == faults.StepDelay || f.Kind == faults.StepCrash {
				return fmt.Errorf("%w %q: %s acts at a named step of a variant inside lockbench; %s runs in a driver process, which has none (run step faults without drv: variants)",
					faults.ErrBadFault, f.String(), f.Kind, v)
			}
		}
	}
	return nil
}

// ProcsValue is --driver-procs as a flag: a number of processes, or auto
// (AutoDriverProcs).
type ProcsValue int

func (v *ProcsValue) String() string {
	if *v == AutoDriverProcs {
		return "auto"
	}
	return strconv.Itoa(int(*v))
}

// Set takes auto or a whole number; Build says when it is below 1.
func (v *ProcsValue) Set(s string) error {
	if s == "auto" {
		*v = AutoDriverProcs
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a number of processes or auto", s)
	}
	*v = ProcsValue(n)
	return nil
}

func (v *ProcsValue) Type() string { return "procs" }
