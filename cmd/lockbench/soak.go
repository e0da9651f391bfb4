package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lockbench/lockbench/soak"
	"github.com/lockbench/lockbench/topologies"
)

// runSoak runs lockbench soak: a mixed workload for --duration, with a
// sample each --interval, judged flat or not at the end.
func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := soak.Options{Log: stderr, OnSample: func(s soak.Sample) { fmt.Fprintln(stdout, s) }}
	fs := newFlagSet("soak", stderr)
	fs.DurationVar(&o.Duration, "duration", 5*time.Minute, "how long to run the mixed workload (e.g. 5m, 1h); at least its first round of plans, the warm-up")
	fs.DurationVar(&o.Interval, "interval", time.Minute, "how often to print resident memory, heap and goroutines")
	fs.StringArrayVar(&o.Targets, "target", nil, "an existing server's `URL`, redis://host:port, as for run (default: a local redis-server of its own); the password comes from $"+topologies.PasswordEnv)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	sum, err := soak.Run(ctx, o)
	if err := soakError(ctx, err); err != nil {
		return err
	}
	fmt.Fprintln(stdout, sum)
	return nil
}

// soakError is the error of soak.Run as the CLI returns it: interrupted,
// thresholds failed when the process did not stay flat, else as it is
// (soak.ErrBadOptions: exit 2; the runs failed: exit 3).
func soakError(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return errInterrupted
	case errors.Is(err, soak.ErrNotFlat):
		return thresholdsFailed{err}
	}
	return err
}
