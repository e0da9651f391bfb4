package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// stepsPerDecade is how many points the spectrum takes per decade of
// 1/(1−q): 90% to 99% is one decade.
const stepsPerDecade = 20

// label names a charted cell: its variant and client count.
func label(c *record.Cell) string {
	return fmt.Sprintf("%s ×%d", c.Variant, c.Clients)
}

// charted are the cells a record's charts show: the first repetition of
// each cell that ran without error.
func charted(rec *record.Record) []*record.Cell {
	var cells []*record.Cell
	for _, g := range record.Groups(rec) {
		for _, c := range g.Cells {
			if c.Error == "" {
				cells = append(cells, c)
				break
			}
		}
	}
	return cells
}

// spectrum returns the percentile spectrum of an encoded acquire
// histogram: x = 1/(1−q), y the latency in milliseconds, from q = 0 up to
// the resolution of the count, then the maximum.
func spectrum(encoded string) (plotter.XYs, error) {
	if encoded == "" {
		return nil, nil
	}
	h, err := metrics.DecodeHistogram(encoded)
	if err != nil {
		return nil, err
	}
	n := h.TotalCount()
	if n == 0 {
		return nil, nil
	}
	var xys plotter.XYs
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/stepsPerDecade)
		if x > float64(n) {
			break
		}
		q := 1 - 1/x
		xys = append(xys, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(100*q)) / 1000})
	}
	xys = append(xys, plotter.XY{X: max(float64(n), xys[len(xys)-1].X*1.01), Y: float64(h.Max()) / 1000})
	return xys, nil
}

// spectrumChart draws the acquire latency percentile spectrum of cells:
// corrected (from the intended start) solid, raw (from the actual start)
// dashed where the two differ. Lines whose p99 is far from the others'
// get a panel of their own scale.
func spectrumChart(cells []*record.Cell) (template.HTML, error) {
	const title = "acquire latency by percentile"
	var lines []line
	for i, c := range cells {
		corrected, err := spectrum(c.Histograms.Acquire)
		if err != nil {
			return "", fmt.Errorf("report: %s: %w", label(c), err)
		}
		lines = append(lines, line{name: label(c), points: corrected, color: i, control: c.Variant == render.ControlVariant})
		if c.Histograms.AcquireRaw == c.Histograms.Acquire {
			continue
		}
		raw, err := spectrum(c.Histograms.AcquireRaw)
		if err != nil {
			return "", fmt.Errorf("report: %s raw: %w", label(c), err)
		}
		lines = append(lines, line{name: label(c) + " raw", points: raw, dashed: true, color: i, control: c.Variant == render.ControlVariant})
	}
	ps, err := panels(title, lines, atP99, func(t string, _ bool) *plot.Plot {
		p := newPlot(t, "percentile", "acquire latency (ms)")
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = percentileTicks{}
		return p
	})
	if err != nil {
		return "", err
	}
	for _, p := range ps {
		p.plot.Y.Min = 0
	}
	return drawPanels(title, ps, chartWidth)
}

// atP99 is a spectrum's latency at its 99th percentile (x = 100), or
// its highest where it does not reach it.
func atP99(points plotter.XYs) float64 {
	y := math.NaN()
	for _, p := range points {
		if p.X <= 100 {
			y = p.Y
		}
	}
	if math.IsNaN(y) || len(points) == 0 || points[len(points)-1].X < 100 {
		return highest(points)
	}
	return y
}

// seriesChart draws one figure of every cell's per-second series, with
// the cells' fault events; lines a control or an outlier would flatten
// get panels of their own scale.
func seriesChart(title, y string, cells []*record.Cell, value func(s measure.Second, elapsedS float64) (float64, bool)) (template.HTML, error) {
	var lines []line
	var events []measure.FaultEvent
	for i, c := range cells {
		var xys plotter.XYs
		for _, s := range c.Series {
			if v, ok := value(s, c.ElapsedS); ok {
				xys = append(xys, plotter.XY{X: float64(s.T) + 0.5, Y: v})
			}
		}
		lines = append(lines, line{name: label(c), points: xys, color: i, control: c.Variant == render.ControlVariant})
		events = append(events, c.Faults...)
	}
	events = dedupEvents(events)
	ps, err := panels(title, lines, highest, func(t string, first bool) *plot.Plot {
		p := newPlot(t, "seconds into the measured phase", y)
		if len(events) > 0 {
			p.Add(faultMarks{events: events, labelled: first})
		}
		return p
	})
	if err != nil {
		return "", err
	}
	xmax := 0.0
	for _, p := range ps {
		xmax = max(xmax, p.plot.X.Max)
	}
	for _, p := range ps {
		p.plot.X.Min, p.plot.X.Max, p.plot.Y.Min = 0, xmax, 0
		if p.plot.Y.Max <= 0 { // all zero (no overlaps): an axis from 0 to 1
			p.plot.Y.Max = 1
		}
	}
	return drawPanels(title, ps, chartWidth)
}

// dedupEvents keeps one of the events the cells share (the same action on
// the same node within a tenth of a second), sorted by time.
func dedupEvents(events []measure.FaultEvent) []measure.FaultEvent {
	slices.SortStableFunc(events, func(a, b measure.FaultEvent) int {
		switch {
		case a.AtS < b.AtS:
			return -1
		case a.AtS > b.AtS:
			return 1
		}
		return 0
	})
	var out []measure.FaultEvent
	for _, e := range events {
		if slices.ContainsFunc(out, func(o measure.FaultEvent) bool {
			return o.Action == e.Action && o.Node == e.Node && math.Abs(o.AtS-e.AtS) < 0.1
		}) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// fairnessChart draws the acquisitions of each client of c as bars, in
// client order; "" when the record has no per-client counts.
func fairnessChart(c *record.Cell) (template.HTML, error) {
	counts := c.Fairness.PerClient
	if len(counts) == 0 {
		return "", nil
	}
	p := newPlot(fmt.Sprintf("acquisitions per client: %s (Jain %s)", label(c), c.Fairness.JainText()), "client", "acquisitions")
	values := make(plotter.Values, len(counts))
	for i, n := range counts {
		values[i] = float64(n)
	}
	width := max(vg.Points(1), (chartWidth-vg.Centimeter*3)/vg.Length(len(counts))*0.8)
	bars, err := plotter.NewBarChart(values, width)
	if err != nil {
		return "", fmt.Errorf("report: %s: %w", label(c), err)
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.X.Tick.Marker = clientTicks{n: len(counts)}
	p.Y.Min = 0
	return svg(p, chartWidth, chartHeight*0.8)
}

// clientTicks number the bars of a fairness chart from 1, at most about
// sixteen labels.
type clientTicks struct{ n int }

// Ticks implements plot.Ticker.
func (t clientTicks) Ticks(_, _ float64) []plot.Tick {
	every := max(1, (t.n+15)/16)
	var ticks []plot.Tick
	for i := 0; i < t.n; i++ {
		if i%every == 0 {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: fmt.Sprint(i + 1)})
		}
	}
	return ticks
}

// sweepChart draws one variant's sweep: measured throughput at each step
// and, for a clients sweep with a fit, the USL curve over the range.
func sweepChart(s *record.Sweep, v *record.SweepVariant) (template.HTML, error) {
	x := "clients"
	if s.By == "rate" {
		x = "offered acquisitions/s"
	}
	p := newPlot("sweep: "+v.Variant, x, "acquisitions/s")
	legend := newLegend()
	var measured, broken plotter.XYs
	hi := 0.0
	for _, pt := range v.Points {
		if pt.Error != "" {
			continue
		}
		n := float64(pt.Clients)
		if s.By == "rate" {
			n = pt.OfferedPerS
		}
		hi = max(hi, n)
		xy := plotter.XY{X: n, Y: pt.ThroughputPerS}
		if pt.Within() {
			measured = append(measured, xy)
		} else {
			broken = append(broken, xy)
		}
	}
	for i, pts := range []struct {
		name string
		xys  plotter.XYs
	}{{"measured, within the SLO", measured}, {"measured, SLO broken", broken}} {
		if len(pts.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts.xys)
		if err != nil {
			return "", err
		}
		sc.Color = plotutil.Color(i * 2)
		sc.Shape = plotutil.Shape(i)
		sc.Radius = vg.Points(3.5)
		p.Add(sc)
		legend.Add(pts.name, sc)
	}
	if v.USL != nil && s.By == "clients" && hi >= 1 {
		u := *v.USL
		var curve plotter.XYs
		for i := 0; i <= 100; i++ {
			n := 1 + (hi-1)*float64(i)/100
			curve = append(curve, plotter.XY{X: n, Y: u.Throughput(n)})
		}
		if err := addLines(p, &legend, []line{{name: fmt.Sprintf("USL fit (R²=%.3f)", u.R2), points: curve, color: 1}}); err != nil {
			return "", err
		}
	}
	p.X.Min, p.Y.Min = 0, 0
	return drawPanels(p.Title.Text, []panel{{plot: p, legend: legend}}, chartWidth)
}
