package main

import (
	"context"
	"io"
	"strings"

	"github.com/lockbench/lockbench/calibrate"
	"github.com/lockbench/lockbench/clients"
)

// runCalibrate runs lockbench calibrate: its flags into calibrate's
// options, the calibration, its summary printed.
func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := calibrate.DefaultOptions()
	o.Log = stderr
	fs := newFlagSet("calibrate", stderr)
	fs.IntVar(&o.Connections, "connections", o.Connections, "`N` connections of redis-benchmark, and as many clients of lockbench")
	fs.IntVar(&o.Requests, "requests", o.Requests, "`N` requests redis-benchmark sends per command (SET, then DEL)")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "measured time of each lockbench run and bare loop")
	fs.DurationVar(&o.Warmup, "warmup", o.Warmup, "warm-up before each lockbench run and bare loop, not measured")
	fs.IntVar(&o.Pairs, "pairs", o.Pairs, "`N` turns of redis-benchmark, then lockbench; the figures are their medians")
	fs.StringVar(&o.Server, "server", o.Server, "the `SERVER` to calibrate on: redis or valkey (against valkey-benchmark), or a server binary's path (default redis)")
	fs.StringVar(&o.Client, "client", o.Client, "client `LIBRARY` of lockbench: "+strings.Join(clients.Names, ", ")+" or "+calibrate.BothClients)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	sum, err := calibrate.Run(ctx, o)
	if err != nil {
		return err
	}
	return sum.Write(stdout)
}
