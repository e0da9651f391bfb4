package render

import (
	"fmt"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/record"
)

// renderScaleOut writes each variant's throughput per node count beside
// the plan's prediction (a sweep of nodes), as a table and its lines.
func renderScaleOut(w io.Writer, scale []record.ScaleOut, markdown bool) error {
	row := tw.CellConfig{Alignment: tw.CellAlignment{Global: tw.AlignRight}}
	for _, s := range scale {
		t := TextTable(w, row)
		if markdown {
			t = newTable(w, row, renderer.NewMarkdown())
			fmt.Fprintf(w, "\n### %s: scale-out\n\n", s.Variant)
		} else {
			fmt.Fprintf(w, "\n%s: scale-out\n", s.Variant)
		}
		t.Header([]string{"nodes", "best acq/s", "at clients", "cpu µs/acq", "busiest master", "its cores", "efficiency", "predicted acq/s", "measured/predicted", "at its clients/node"})
		for _, r := range s.Rows {
			dash := func(v float64, f string) string {
				if v <= 0 {
					return "-"
				}
				return fmt.Sprintf(f, v)
			}
			if err := t.Append([]string{strconv.Itoa(r.Nodes), dash(r.ThroughputPerS, "%.0f"), strconv.Itoa(r.Clients), dash(r.CPUMicrosPerAcq, "%.1f"),
				dash(100*r.BusiestShare, "%.0f%%"), dash(r.MasterCores, "%.3f"), dash(r.Efficiency, "%.2f"), dash(r.PredictedPerS, "%.0f"), dash(r.Ratio, "%.2f"), dash(r.MatchedRatio, "%.2f")}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		for _, line := range s.Lines() {
			if markdown {
				line = "- " + line
			}
			fmt.Fprintln(w, line)
		}
	}
	return nil
}
