package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/variants"
)

func runVariants(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("variants", stderr)
	format := fs.String("format", "table", "output `FORMAT`: table or json")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(variants.All())
	case "table":
	default:
		return usagef("--format: unknown format %q (known: table, json)", *format)
	}
	t := render.TextTable(stdout, tw.CellConfig{Formatting: tw.CellFormatting{AutoWrap: tw.WrapNormal}, ColMaxWidths: tw.CellWidth{Global: 44}})
	t.Header([]string{"variant", "kind", "claims", "default retry", "runs on", "source", "how it works"})
	for _, v := range variants.All() {
		var shapes []string
		for _, s := range []variants.Shape{variants.ShapeSingle, variants.ShapeCluster, variants.ShapeIndependent} {
			if v.Supports(s) {
				shapes = append(shapes, string(s))
			}
		}
		runsOn := strings.Join(shapes, ",")
		if len(v.Clients) > 0 {
			runsOn += "; " + strings.Join(v.Clients, ",") + " only"
		}
		retry := v.DefaultRetry
		if retry == "" {
			retry = "the library's"
		}
		row := []string{v.Name, string(v.Kind), v.Claims.String(), retry, runsOn, v.Source, v.Summary}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}
