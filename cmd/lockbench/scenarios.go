package main

import (
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/render"
)

func runScenarios(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("scenarios", stderr)
	if help, err := parse(fs, args); help || err != nil {
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
