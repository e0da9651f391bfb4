package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// bandRatio is how far apart two lines' peaks may be and still share a
// panel: a line whose peak is less than a tenth of the panel's
// highest would be flattened onto the axis, and goes to a panel of its own
// scale (the none control's 12,000 acquisitions/s beside a lock's 600).
const bandRatio = 10

// Heights of a chart of one panel and of each panel of several.
const (
	panelHeight      = 9 * vg.Centimeter
	smallPanelHeight = 6 * vg.Centimeter
)

// legendFontSize is the size of the legends' text.
var legendFontSize = vg.Points(9)

// peakFunc is the height a line's points reach, as the bands compare it.
type peakFunc func(points plotter.XYs) float64

// highest is the highest y of points.
func highest(points plotter.XYs) float64 {
	m := 0.0
	for _, p := range points {
		m = math.Max(m, p.Y)
	}
	return m
}

// bands splits lines into those that can share a panel: lines of one
// color (a line and its dashed twin) stay together; a band holds the
// colors whose peaks are within bandRatio of its highest. The band of the
// most lines comes first, the others by height, and a band of the
// control (render.ControlVariant) after those without.
func bands(lines []line, peak peakFunc) [][]line {
	type group struct {
		color int
		lines []line
		peak  float64
	}
	var groups []*group
	for _, l := range lines {
		i := slices.IndexFunc(groups, func(g *group) bool { return g.color == l.color })
		if i < 0 {
			groups = append(groups, &group{color: l.color})
			i = len(groups) - 1
		}
		groups[i].lines = append(groups[i].lines, l)
		groups[i].peak = math.Max(groups[i].peak, peak(l.points))
	}
	byPeak := slices.Clone(groups)
	slices.SortStableFunc(byPeak, func(a, b *group) int { return cmp.Compare(b.peak, a.peak) })
	var out [][]*group
	for _, g := range byPeak {
		if n := len(out); n > 0 && g.peak >= out[n-1][0].peak/bandRatio {
			out[n-1] = append(out[n-1], g)
			continue
		}
		out = append(out, []*group{g})
	}
	hasControl := func(band []*group) bool {
		return slices.ContainsFunc(band, func(g *group) bool { return g.lines[0].control })
	}
	slices.SortStableFunc(out, func(a, b []*group) int {
		switch ca, cb := hasControl(a), hasControl(b); {
		case ca && !cb:
			return 1
		case cb && !ca:
			return -1
		}
		return cmp.Compare(len(b), len(a))
	})
	var result [][]line
	for _, band := range out {
		slices.SortFunc(band, func(a, b *group) int { return cmp.Compare(a.color, b.color) })
		var ls []line
		for _, g := range band {
			ls = append(ls, g.lines...)
		}
		result = append(result, ls)
	}
	return result
}

// panel is one plot of a chart with the legend drawn beside it, outside
// its plotting area.
type panel struct {
	plot   *plot.Plot
	legend plot.Legend
}

// newLegend returns an empty legend in the page's legend style.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = legendFontSize
	l.ThumbnailWidth = vg.Points(16)
	return l
}

// bandTitle heads the panels after a chart's first: their lines, on a
// scale of their own.
func bandTitle(lines []line) string {
	var names []string
	for _, l := range lines {
		if !l.dashed {
			names = append(names, l.name)
		}
	}
	return "on its own scale: " + strings.Join(names, ", ")
}

// panels draws lines on one panel, or on one panel per band when a line
// would flatten the others; newPanel makes each plot (first says whether
// it heads the chart) with its axes set up.
func panels(title string, lines []line, peak peakFunc, newPanel func(title string, first bool) *plot.Plot) ([]panel, error) {
	var out []panel
	for i, band := range bands(lines, peak) {
		t := title
		if i > 0 {
			t = bandTitle(band)
		}
		p := newPanel(t, i == 0)
		lg := newLegend()
		if err := addLines(p, &lg, band); err != nil {
			return nil, err
		}
		out = append(out, panel{plot: p, legend: lg})
	}
	if len(out) == 0 {
		out = append(out, panel{plot: newPanel(title, true), legend: newLegend()})
	}
	return out, nil
}

// drawPanels renders panels stacked in one inline SVG, labelled title:
// the plots' data areas aligned, each legend right of its plot.
func drawPanels(title string, ps []panel, width vg.Length) (template.HTML, error) {
	height := panelHeight
	if len(ps) > 1 {
		height = smallPanelHeight * vg.Length(len(ps))
	}
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	var legendWidth vg.Length
	for i := range ps {
		if r := ps[i].legend.Rectangle(dc); r.Size().X > legendWidth {
			legendWidth = r.Size().X
		}
	}
	plotArea := dc
	if legendWidth > 0 {
		plotArea = draw.Crop(dc, 0, -(legendWidth + vg.Points(12)), 0, 0)
	}
	plots := make([][]*plot.Plot, len(ps))
	for i := range ps {
		plots[i] = []*plot.Plot{ps[i].plot}
	}
	canvases := plot.Align(plots, draw.Tiles{Rows: len(ps), Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(2)}, plotArea)
	for i := range ps {
		ps[i].plot.Draw(canvases[i][0])
		data := ps[i].plot.DataCanvas(canvases[i][0])
		legend := dc
		legend.Min = vg.Point{X: plotArea.Max.X + vg.Points(10), Y: data.Min.Y}
		legend.Max = vg.Point{X: dc.Max.X, Y: data.Max.Y}
		ps[i].legend.Draw(legend)
	}
	return inlineSVG(title, c)
}

// inlineSVG writes c as an SVG element for inline use, labelled title:
// no XML prolog, fonts named (the browser's own) rather than embedded or
// linked.
func inlineSVG(title string, c *vgsvg.Canvas) (template.HTML, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("report: render chart %q: %w", title, err)
	}
	out := buf.String()
	if i := strings.Index(out, "<svg"); i >= 0 {
		out = out[i:]
	}
	out = strings.Replace(out, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(title)+`" `, 1)
	return template.HTML(out), nil // #nosec: drawn here; vgsvg escapes text
}
