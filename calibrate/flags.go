package calibrate

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/plan"
)

// Flags are lockbench calibrate's flags on a flag set: lockbench's own
// calibration's, and with --driver a lock driver's against its bare loop.
type Flags struct {
	fs *pflag.FlagSet
	o  Options
	d  DriverOptions
}

// NewFlags defines calibrate's flags on fs, their defaults
// DefaultOptions' and DefaultDriverOptions'.
func NewFlags(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs, o: DefaultOptions(), d: DefaultDriverOptions()}
	o, d := &f.o, &f.d
	fs.IntVar(&o.Connections, "connections", o.Connections, "`N` connections of redis-benchmark, and as many clients of lockbench")
	fs.IntVar(&o.Requests, "requests", o.Requests, "`N` requests redis-benchmark sends per command (SET, then DEL)")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "measured time of each lockbench run and bare loop")
	fs.DurationVar(&o.Warmup, "warmup", o.Warmup, "warm-up before each lockbench run and bare loop, not measured (with --driver: 1s, 10s for a Java driver, whose JVM compiles for seconds)")
	fs.IntVar(&o.Pairs, "pairs", o.Pairs, "`N` turns of redis-benchmark, then lockbench; the figures are their medians (default 5 with --driver)")
	fs.StringVar(&o.Server, "server", o.Server, "the `SERVER` to calibrate on: redis or valkey (against valkey-benchmark), or a server binary's path (default redis)")
	fs.StringVar(&o.Client, "client", o.Client, "client `LIBRARY` of lockbench: "+strings.Join(clients.Names, ", ")+" or "+BothClients)
	fs.StringVar(&d.Driver, "driver", "", "calibrate the lock driver `NAME` (or NAME@VERSION) against its bare loop, the library's own calls in a plain loop, instead")
	fs.IntVar(&d.Clients, "clients", d.Clients, "`N` clients of each side with --driver, a lock name each")
	fs.Var((*plan.ProcsValue)(&d.Procs), "driver-procs", "spread lockbench's clients over `N` driver processes with --driver; auto: one per core for a Python driver, one otherwise (the bare loop is one process)")
	fs.StringVar(&d.Dir, "drivers", "", "the `DIR` of driver folders with --driver (default $"+driver.DirEnv+", else ./drivers, else the drivers folder beside lockbench's bin/)")
	return f
}

// Run runs the calibration the parsed flags ask for, logging its steps
// to log, and returns its summary. A flag of one calibration given to the
// other is an error wrapping ErrBadOptions.
func (f *Flags) Run(ctx context.Context, log io.Writer) (interface{ Write(io.Writer) error }, error) {
	own, other := []string{"clients", "driver-procs", "drivers"}, "--driver"
	if f.d.Driver != "" {
		own, other = []string{"connections", "requests", "client"}, "lockbench's own calibration (without --driver)"
	}
	for _, name := range own {
		if f.fs.Changed(name) {
			return nil, badf("--%s goes only with %s", name, other)
		}
	}
	if f.d.Driver == "" {
		f.o.Log = log
		return Run(ctx, f.o)
	}
	d := f.d
	d.Duration, d.Server, d.Log = f.o.Duration, f.o.Server, log
	if f.fs.Changed("warmup") {
		d.Warmup = f.o.Warmup
	}
	if f.fs.Changed("pairs") {
		d.Pairs = f.o.Pairs
	}
	return RunDriver(ctx, d)
}
