package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/render"
)

// runScenarios lists the scenarios in 100 columns: one line or two each,
// the full text of one with scenarios NAME, the wide table with --wide.
func runScenarios(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("scenarios", stderr)
	wide := fs.Bool("wide", false, "every scenario's full text in one table (about 270 columns)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 1:
		return usagef("scenarios: give one scenario NAME at most (given: %s)", strings.Join(fs.Args(), " "))
	case fs.NArg() == 1:
		s, err := plan.LookupScenario(fs.Arg(0))
		if err != nil {
			return usagef("scenarios: %w", err)
		}
		fmt.Fprintln(stdout, s.Name)
		for _, f := range [][2]string{{"tests", s.Tests}, {"variants", strings.Join(s.Variants, ", ")}, {"predicts", s.Predicts}, {"source", s.Source}} {
			fmt.Fprint(stdout, render.Labelled("  "+f[0]+":", f[1], 12, 100))
		}
		return nil
	case !*wide:
		for _, s := range plan.Scenarios {
			fmt.Fprint(stdout, render.Labelled(s.Name, fmt.Sprintf("%s (variants: %d)", s.Tests, len(s.Variants)), 23, 100))
		}
		_, err := fmt.Fprintln(stdout, "\nlockbench scenarios NAME: one in full (variants, prediction, source); --wide: all, as a table")
		return err
	}
	t := render.TextTable(stdout, tw.CellConfig{Formatting: tw.CellFormatting{AutoWrap: tw.WrapNormal}, ColMaxWidths: tw.CellWidth{Global: 40}})
	t.Header([]string{"scenario", "tests", "variants", "predicts", "source"})
	for _, s := range plan.Scenarios {
		if err := t.Append([]string{s.Name, s.Tests, strings.Join(s.Variants, ","), s.Predicts, s.Source}); err != nil {
			return err
		}
	}
	return t.Render()
}
