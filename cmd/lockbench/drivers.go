package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/conform"
	"github.com/lockbench/lockbench/driver/install"
)

// driverFlags are --drivers and --driver, of drivers and driver check:
// the known drivers.
func driverFlags(fs *pflag.FlagSet) func() ([]driver.Manifest, error) {
	dir := fs.String("drivers", "", "the `DIR` of driver folders, each with a driver.json (default $"+driver.DirEnv+
		", else ./drivers, else the drivers folder beside lockbench's bin/)")
	specs := fs.StringArray("driver", nil, "a driver of your own, `NAME=COMMAND` (repeatable; the command is split at spaces)")
	return func() ([]driver.Manifest, error) {
		if *dir == "" {
			*dir = driver.DefaultDir()
		}
		return driver.Known(*dir, *specs)
	}
}

// runDrivers runs lockbench drivers: the known drivers, listed with the
// library versions installed; drivers install NAME@VERSION... installs.
func runDrivers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "install" {
		return runDriversInstall(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("drivers", stderr)
	known := driverFlags(fs)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	ms, err := known()
	if err != nil {
		return err
	}
	return driver.WriteList(stdout, ms, install.Versions)
}

// runDriversInstall installs each NAME@VERSION's library environment
// (package driver/install) and prints where it is.
func runDriversInstall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("drivers install", stderr)
	known := driverFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("drivers install: give NAME@VERSION, e.g. redis-py@8.2.0 or redisson@3.46.0")
	}
	ms, err := known()
	if err != nil {
		return err
	}
	for _, ref := range fs.Args() {
		if !strings.Contains(ref, "@") {
			return usagef("drivers install: %q names no version: give NAME@VERSION", ref)
		}
		m, err := install.Find(ctx, ms, ref, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s %s in %s\n", m.Name, m.Package.Name, m.Version, m.EnvDir)
	}
	return nil
}

// runDriverCheck runs lockbench driver check: the conformance suite on one
// driver, a line per check; exit status 1 when one fails.
func runDriverCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("driver check", stderr)
	known := driverFlags(fs)
	o := conform.Options{OnResult: func(r conform.Result) { fmt.Fprintln(stdout, r) }}
	fs.DurationVar(&o.AcquireTimeout, "acquire-timeout", conform.DefaultAcquireTimeout, "the driver's acquire timeout: how long the checks on a held lock wait")
	verbose := fs.BoolP("verbose", "v", false, "show the driver's stderr")
	if help, err := parseWithArgs(fs, args, 1); help || err != nil {
		return err
	}
	if *verbose {
		o.Log = stderr
	}
	ms, err := known()
	if err == nil {
		o.Driver, err = install.Find(ctx, ms, fs.Arg(0), stderr)
	}
	if err != nil {
		return err
	}
	rep, err := conform.Run(ctx, o)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: driver check of %s stopped, its driver closed", errInterrupted, o.Driver.Name)
	case err != nil:
		return err
	case rep.Failed() > 0:
		return thresholdsFailed{fmt.Errorf("driver %s: %s", o.Driver.Name, rep.Summary())}
	}
	fmt.Fprintf(stdout, "driver %s: %s\n", o.Driver.Name, rep.Summary())
	return nil
}
