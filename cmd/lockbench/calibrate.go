package main

import (
	"context"
	"io"

	"github.com/lockbench/lockbench/calibrate"
)

// runCalibrate runs lockbench calibrate: its flags (calibrate's), the
// calibration they ask for, its summary printed.
func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("calibrate", stderr)
	flags := calibrate.NewFlags(fs)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	sum, err := flags.Run(ctx, stderr)
	if err != nil {
		return err
	}
	return sum.Write(stdout)
}
