package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lockbench/lockbench/results"
)

// Chart size in points: wide enough for a laptop screen, scaled down by
// the page's CSS on a narrower one.
const (
	chartWidth  = 18 * vg.Centimeter
	chartHeight = 9 * vg.Centimeter
)

// line is one named line of a chart.
type line struct {
	name   string
	points plotter.XYs
	dashed bool
	color  int // index into the palette: a line and its dashed twin share it
}

// newPlot returns a plot with the page's title, axis labels and legend.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// addLines draws lines on p, each in its palette color, with a legend entry.
func addLines(p *plot.Plot, lines []line) error {
	for _, l := range lines {
		if len(l.points) == 0 {
			continue
		}
		pl, err := plotter.NewLine(l.points)
		if err != nil {
			return fmt.Errorf("report: %s: %w", l.name, err)
		}
		pl.Color = plotutil.Color(l.color)
		pl.Width = vg.Points(1.5)
		if l.dashed {
			pl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(pl)
		p.Legend.Add(l.name, pl)
		if len(l.points) < 4 { // a line of one point draws nothing: mark the points
			sc, err := plotter.NewScatter(l.points)
			if err != nil {
				return fmt.Errorf("report: %s: %w", l.name, err)
			}
			sc.GlyphStyle.Color, sc.GlyphStyle.Radius = pl.Color, vg.Points(2.5)
			p.Add(sc)
		}
	}
	return nil
}

// svg renders p as an SVG element for inline use: no XML prolog, fonts
// named (the browser's own) rather than embedded or linked.
func svg(p *plot.Plot, width, height vg.Length) (template.HTML, error) {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("report: render chart %q: %w", p.Title.Text, err)
	}
	out := buf.String()
	if i := strings.Index(out, "<svg"); i >= 0 {
		out = out[i:]
	}
	out = strings.Replace(out, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(p.Title.Text)+`" `, 1)
	return template.HTML(out), nil // #nosec: drawn here; vgsvg escapes text
}

// faultMarks draws the fault events of a cell as vertical lines with a
// label at the top of the plotting area.
type faultMarks struct{ events []results.Event }

var faultColor = color.RGBA{R: 0xc0, G: 0x20, B: 0x20, A: 0xff}

// Plot implements plot.Plotter.
func (f faultMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	style := draw.LineStyle{Color: faultColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	text := p.Legend.TextStyle
	text.Color = faultColor
	text.Font.Size = vg.Points(8)
	for i, e := range f.events {
		x := trX(e.AtS)
		c.StrokeLine2(style, x, c.Min.Y, x, c.Max.Y)
		label := e.Action + " " + e.Node
		if e.Error != "" {
			label += " (failed)"
		}
		// Stagger the labels so that events close in time stay legible.
		y := c.Max.Y - text.Font.Size*vg.Length(1+i%3)
		c.FillText(text, vg.Point{X: x + vg.Points(2), Y: y}, label)
	}
}

// DataRange implements plot.DataRanger: the events' times widen the x
// axis; the y axis is the data's.
func (f faultMarks) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, e := range f.events {
		xmin, xmax = math.Min(xmin, e.AtS), math.Max(xmax, e.AtS)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

// percentileTicks label the spectrum's x axis, 1/(1−q) on a log scale,
// with the percentiles 0%, 90%, 99%, 99.9%, ...
type percentileTicks struct{}

// Ticks implements plot.Ticker.
func (percentileTicks) Ticks(min, max float64) []plot.Tick {
	labels := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%", "99.99999%"}
	var ticks []plot.Tick
	for i, x := 0, 1.0; x <= max*1.0001 && i < len(labels); i, x = i+1, x*10 {
		if x >= min/1.0001 {
			ticks = append(ticks, plot.Tick{Value: x, Label: labels[i]})
		}
	}
	return ticks
}
