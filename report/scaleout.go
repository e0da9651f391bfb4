package report

import (
	"fmt"
	"html/template"

	"gonum.org/v1/plot/plotter"

	"github.com/lockbench/lockbench/record"
)

// scaleOutChart draws a variant's scale-out (a sweep of nodes): the best
// throughput measured at each node count and the plan's prediction from
// the one-node steps, against the nodes.
func scaleOutChart(s *record.ScaleOut) (template.HTML, error) {
	p := newPlot("scale-out: "+s.Variant, "nodes (masters)", "acquisitions/s")
	legend := newLegend()
	var measured, predicted plotter.XYs
	for _, r := range s.Rows {
		if r.ThroughputPerS > 0 {
			measured = append(measured, plotter.XY{X: float64(r.Nodes), Y: r.ThroughputPerS})
		}
		if r.PredictedPerS > 0 {
			predicted = append(predicted, plotter.XY{X: float64(r.Nodes), Y: r.PredictedPerS})
		}
	}
	budget := fmt.Sprintf("%.0f%% of a core per node", 100*s.NodeShare)
	lines := []line{{name: "measured (best within the SLO)", points: measured, color: 0}}
	if len(predicted) > 0 {
		lines = append(lines, line{name: "planned from one node, " + budget, points: predicted, color: 1, dashed: true})
	}
	if err := addLines(p, &legend, lines); err != nil {
		return "", err
	}
	p.X.Min, p.Y.Min = 0, 0
	return drawPanels(p.Title.Text, []panel{{plot: p, legend: legend}}, chartWidth)
}
