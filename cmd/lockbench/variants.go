package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/variants"
)

// variantsWidth is the width the list and variants NAME fit.
const variantsWidth = 100

// runVariants lists the variants in 100 columns, two lines each; the
// whole of one with variants NAME, the wide table with --wide; --format
// json gives them all, or the one NAME names.
func runVariants(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("variants", stderr)
	format := fs.String("format", "table", "output `FORMAT`: table or json")
	wide := fs.Bool("wide", false, "every variant's full text in one table (about 210 columns)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return usagef("--format: unknown format %q (known: table, json)", *format)
	}
	if fs.NArg() > 1 {
		return usagef("variants: give one variant NAME at most (given: %s)", strings.Join(fs.Args(), " "))
	}
	var one *variants.Info
	if fs.NArg() == 1 {
		v, err := variants.Lookup(fs.Arg(0))
		if err != nil {
			return usagef("variants: %w", err)
		}
		one = &v
	}
	switch {
	case *format == "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if one != nil {
			return enc.Encode(one)
		}
		return enc.Encode(variants.All())
	case one != nil:
		return writeVariant(stdout, *one)
	case *wide:
		return writeVariantsTable(stdout)
	}
	for _, v := range variants.All() {
		facts := fmt.Sprintf("%s; claims %s", v.Kind, v.Claims.String())
		if where := v.UnusualRunsOn(); where != "" {
			facts += "; " + where
		}
		fmt.Fprint(stdout, render.Labelled(v.Name, facts, 15, variantsWidth))
		fmt.Fprint(stdout, render.Labelled("", render.Cut(v.Summary, variantsWidth-15), 15, variantsWidth))
	}
	_, err := fmt.Fprintln(stdout, "\nlockbench variants NAME: one in full (retry, source, how it works); --wide: all, as a table")
	return err
}

// writeVariant writes every field of v, each labelled, in 100 columns.
func writeVariant(w io.Writer, v variants.Info) error {
	fmt.Fprintln(w, v.Name)
	for _, f := range v.Facts() {
		fmt.Fprint(w, render.Labelled("  "+f[0]+":", f[1], 17, variantsWidth))
	}
	return nil
}

// writeVariantsTable writes every variant's full text in one boxed table,
// as lockbench variants did before it fitted 100 columns.
func writeVariantsTable(w io.Writer) error {
	t := render.TextTable(w, tw.CellConfig{Formatting: tw.CellFormatting{AutoWrap: tw.WrapNormal}, ColMaxWidths: tw.CellWidth{Global: 44}})
	t.Header([]string{"variant", "kind", "claims", "default retry", "runs on", "source", "how it works"})
	for _, v := range variants.All() {
		row := []string{v.Name, string(v.Kind), v.Claims.String(), v.RetryText(), v.WhereText(), v.Source, v.Summary}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}
