package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/results"
	"github.com/lockbench/lockbench/runner"
)

// runFindings runs every scenario (or those named) against its variants and
// writes the findings report.
func runFindings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("findings", stderr)
	out := fs.String("out", "docs/findings.md", "the markdown report")
	only := fs.StringSlice("scenarios", nil, "run only these scenarios (default: all)")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	for _, name := range *only {
		if _, err := plan.LookupScenario(name); err != nil {
			return usagef("--scenarios: %w", err)
		}
	}
	if err := checkOutFile("--out", *out); err != nil { // before the scenarios run
		return err
	}
	var findings []results.Finding
	for _, s := range plan.Scenarios {
		if len(*only) > 0 && !slices.Contains(*only, s.Name) {
			continue
		}
		p, err := buildPlan(&s, plan.Overrides{})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "lockbench: findings: %s (%s)\n", s.Name, strings.Join(s.Variants, ", "))
		rec, err := runner.Run(ctx, p, runner.Options{})
		if err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if rec.Interrupted {
			return fmt.Errorf("%w during scenario %s: %s not written", errInterrupted, s.Name, *out)
		}
		findings = append(findings, results.Finding{Name: s.Name, Tests: s.Tests, Source: s.Source, Predicts: s.Predicts,
			Command: "lockbench run --scenario " + s.Name, Expect: s.Expect, Record: rec})
	}
	var buf bytes.Buffer
	if err := results.WriteFindings(&buf, findings); err != nil {
		return err
	}
	if err := results.WriteAtomic(*out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "findings of %d scenarios written to %s\n", len(findings), *out)
	return nil
}
