package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lockbench/lockbench/compare"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// compareOptions are the flags of lockbench compare.
type compareOptions struct {
	oldPath, newPath string
	alpha            float64
	failOn           []string
	format           string
}

// runCompare compares two records cell by cell over their repetitions.
func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", stderr)
	var o compareOptions
	fs.Float64Var(&o.alpha, "alpha", compare.DefaultAlpha,
		"significance `LEVEL` in (0, 1): a change counts when the Mann-Whitney U test's p-value is below it")
	fs.StringArrayVar(&o.failOn, "fail-on", nil,
		"exit status 1 on a regression `RULE`: acquire.p99:+10% (significantly worse by more than 10 %), throughput:-5%, "+
			"or overlaps:>0 (met by any repetition of the new record) (repeatable)")
	fs.StringVar(&o.format, "format", "table", "output `FORMAT`: "+strings.Join(render.Formats, ", "))
	if help, err := parseWithArgs(fs, args, 2); help || err != nil {
		if !help && fs.Parsed() && fs.NArg() != 2 {
			return usagef("compare: give two records, OLD.json NEW.json (got %d)", fs.NArg())
		}
		return err
	}
	o.oldPath, o.newPath = fs.Arg(0), fs.Arg(1)
	return compareRecords(o, stdout, stderr)
}

func compareRecords(o compareOptions, stdout, stderr io.Writer) error {
	if !(o.alpha > 0 && o.alpha < 1) {
		return usagef("--alpha: must be in (0, 1), e.g. 0.05 (got %v)", o.alpha)
	}
	var rules []compare.Rule
	for _, text := range o.failOn {
		r, err := compare.ParseRule(text)
		if err != nil {
			return usagef("--fail-on: %w", err)
		}
		rules = append(rules, r)
	}
	if err := render.CheckFormat(o.format); err != nil {
		return usagef("--format: %w", err)
	}
	oldRec, err := record.Load(o.oldPath)
	if err != nil {
		return usageError{err}
	}
	newRec, err := record.Load(o.newPath)
	if err != nil {
		return usageError{err}
	}
	rep, err := compare.Compare(oldRec, newRec, compare.Options{Alpha: o.alpha, Rules: rules})
	if err != nil {
		return usageError{err}
	}
	if len(rep.Cells) == 0 {
		// Nothing was compared, so no relative rule could fail: in CI that
		// must not pass as "no regression". Bad input prints nothing.
		return usagef("compare: no cell of %s is in %s (cells match by variant, client, clients, keys and limit)", o.oldPath, o.newPath)
	}
	if err := compare.Render(stdout, rep, o.format); err != nil {
		return err
	}
	if len(rep.Failures) > 0 {
		for _, f := range rep.Failures {
			fmt.Fprintln(stderr, "lockbench: regression: "+f.String())
		}
		return fmt.Errorf("%w: %d regression(s) against --fail-on", errThresholds, len(rep.Failures))
	}
	return nil
}
