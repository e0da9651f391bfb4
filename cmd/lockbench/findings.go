package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/outputs"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner"
)

// runFindings runs every scenario (or those named) against its variants and
// writes the findings report, with porcupine's verdict on every cell's
// history counted against the oracle's.
func runFindings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("findings", stderr)
	out := fs.String("out", "docs/findings.md", "the `FILE` of the markdown report")
	only := fs.StringSlice("scenarios", nil, "run only these scenarios, comma-separated `NAMES` (default: all)")
	drivers := fs.StringSlice("variants", nil, "library drivers, drv:`NAMES` comma-separated, to run beside each scenario's designs where they apply (default: none)")
	dir := fs.String("drivers", "", "the `DIR` of the drivers' folders (default: $LOCKBENCH_DRIVERS, ./drivers, or the one beside lockbench)")
	servers := fs.StringSlice("servers", nil, "run every scenario on each of these `SERVERS`: redis,valkey (redis, valkey or a server binary's path; default: redis-server)")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if err := outputs.CheckFile("--out", *out); err != nil { // before the scenarios run
		return err
	}
	if err := plan.CheckServers("--servers", *servers); err != nil {
		return usageError{err}
	}
	findings, err := runner.Findings(ctx, runner.FindingsOptions{Only: *only, Drivers: *drivers, DriversDir: *dir, Servers: *servers,
		OnScenario: func(s plan.Scenario, drivers []string) {
			fmt.Fprintf(stderr, "lockbench: findings: %s (%s)\n", s.Name, strings.Join(append(slices.Clone(s.Variants), drivers...), ", "))
		}})
	if errors.Is(err, runner.ErrInterrupted) {
		return fmt.Errorf("%w: %s not written", err, *out)
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := render.WriteFindings(&buf, findings); err != nil {
		return err
	}
	if err := record.WriteAtomic(*out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "findings of %d scenarios written to %s\n", len(findings), *out)
	return nil
}
