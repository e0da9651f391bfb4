package report

import (
	"fmt"
	"html/template"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lockbench/lockbench/measure"
)

// Chart size in points: wide enough for a laptop screen and a legend
// beside the plot, scaled down by the page's CSS on a narrower one.
const (
	chartWidth  = 22 * vg.Centimeter
	chartHeight = 9 * vg.Centimeter
)

// line is one named line of a chart.
type line struct {
	name   string
	points plotter.XYs
	dashed bool
	color  int // index into the palette: a line and its dashed twin share it
	// control marks the control's line, which a chart draws after the
	// others where it needs a panel of its own.
	control bool
}

// newPlot returns a plot with the page's title and axis labels; its
// legend, if any, is drawn beside it (see panel).
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

// addLines draws lines on p, each in its palette color, with an entry in
// legend.
func addLines(p *plot.Plot, legend *plot.Legend, lines []line) error {
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
		legend.Add(l.name, pl)
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

// svg renders p, a chart without a legend, as an SVG element for inline
// use (see inlineSVG).
func svg(p *plot.Plot, width, height vg.Length) (template.HTML, error) {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	return inlineSVG(p.Title.Text, c)
}

// faultMarks draws the fault events of a cell as vertical lines, with a
// label at the top of the plotting area where labelled (the first panel
// of a chart).
type faultMarks struct {
	events   []measure.FaultEvent
	labelled bool
}

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
		if !f.labelled {
			continue
		}
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
