package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/calibrate"
	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/plan"
)

// runCalibrate runs lockbench calibrate: its flags into calibrate's
// options, the calibration, its summary printed. With --driver it
// calibrates a lock driver against its bare loop instead.
func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := calibrate.DefaultOptions()
	d := calibrate.DefaultDriverOptions()
	o.Log, d.Log = stderr, stderr
	fs := newFlagSet("calibrate", stderr)
	fs.IntVar(&o.Connections, "connections", o.Connections, "`N` connections of redis-benchmark, and as many clients of lockbench")
	fs.IntVar(&o.Requests, "requests", o.Requests, "`N` requests redis-benchmark sends per command (SET, then DEL)")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "measured time of each lockbench run and bare loop")
	fs.DurationVar(&o.Warmup, "warmup", o.Warmup, "warm-up before each lockbench run and bare loop, not measured")
	fs.IntVar(&o.Pairs, "pairs", o.Pairs, "`N` turns of redis-benchmark, then lockbench; the figures are their medians (default 5 with --driver)")
	fs.StringVar(&o.Server, "server", o.Server, "the `SERVER` to calibrate on: redis or valkey (against valkey-benchmark), or a server binary's path (default redis)")
	fs.StringVar(&o.Client, "client", o.Client, "client `LIBRARY` of lockbench: "+strings.Join(clients.Names, ", ")+" or "+calibrate.BothClients)
	fs.StringVar(&d.Driver, "driver", "", "calibrate the lock driver `NAME` (or NAME@VERSION) against its bare loop, the library's own calls in a plain loop, instead")
	fs.IntVar(&d.Clients, "clients", d.Clients, "`N` clients of each side with --driver, a lock name each")
	fs.Var((*plan.ProcsValue)(&d.Procs), "driver-procs", "spread lockbench's clients over `N` driver processes with --driver; auto: one per core for a Python driver, one otherwise (the bare loop is one process)")
	dir := fs.String("drivers", "", "the `DIR` of driver folders with --driver (default $"+driver.DirEnv+", else ./drivers, else the drivers folder beside lockbench's bin/)")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if d.Driver == "" {
		if fs.Changed("clients") || fs.Changed("drivers") || fs.Changed("driver-procs") {
			return usagef("--clients, --driver-procs and --drivers go with --driver (lockbench's own calibration takes --connections)")
		}
		sum, err := calibrate.Run(ctx, o)
		if err != nil {
			return err
		}
		return sum.Write(stdout)
	}
	return calibrateDriver(ctx, fs, o, d, *dir, stdout)
}

// calibrateDriver runs lockbench calibrate --driver: the options shared
// with lockbench's own calibration carried over, those of it alone
// refused.
func calibrateDriver(ctx context.Context, fs *pflag.FlagSet, o calibrate.Options, d calibrate.DriverOptions, dir string, stdout io.Writer) error {
	for _, name := range []string{"connections", "requests", "client"} {
		if fs.Changed(name) {
			return usagef("--%s is lockbench's own calibration's, not --driver's (it takes --clients, --driver-procs, --pairs, --duration, --warmup, --server)", name)
		}
	}
	d.Duration, d.Warmup, d.Server = o.Duration, o.Warmup, o.Server
	if fs.Changed("pairs") {
		d.Pairs = o.Pairs
	}
	if dir == "" {
		dir = driver.DefaultDir()
	}
	known, err := driver.Known(dir, nil)
	if err != nil {
		return err
	}
	d.Known = known
	sum, err := calibrate.RunDriver(ctx, d)
	if err != nil {
		return err
	}
	return sum.Write(stdout)
}
