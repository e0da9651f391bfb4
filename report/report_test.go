package report_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/capacity"
	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/report"
)

// cell builds a cell from real recorders: three seconds of acquisitions
// from clients, the third second half as long; raw latency half the
// corrected one when openLoop.
func cell(t *testing.T, variant string, clients int, openLoop bool) record.Cell {
	t.Helper()
	start := time.Unix(1_700_000_000, 0)
	rec := metrics.NewRecorder(start)
	perClient := make([]int64, clients)
	for i := 1; i <= 3000; i++ {
		at := start.Add(time.Duration(i) * 833 * time.Microsecond)
		d := time.Duration(i%500+1) * 10 * time.Microsecond
		raw := d
		if openLoop {
			raw = d / 2
		}
		rec.Acquired(at, d, raw)
		rec.Add(at, metrics.Attempt)
		perClient[i%clients] += int64(1 + i%2)
	}
	out := metrics.CellSummary{
		Measured: metrics.Merge([]*metrics.Recorder{rec}, perClient),
		Warmup:   metrics.Merge(nil, nil),
		Handoff:  oracle.New(1, 1).Handoff(),
		Elapsed:  2500 * time.Millisecond,
	}
	out.Measured.Series[1].Overlaps = 2
	if openLoop {
		out.Offered = 3000
	}
	c, err := record.NewCell(out, oracle.Report{Overlaps: 2, LostUpdates: 1, CriticalSections: 3000})
	if err != nil {
		t.Fatal(err)
	}
	c.Variant, c.Client, c.Clients, c.Topology, c.Limit, c.Repetition = variant, "rueidis", clients, "local", 1, 1
	return c
}

func newRecord(cells ...record.Cell) *record.Record {
	return &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: "test-run",
		Topology: record.TopologyInfo{Name: "local:single", Representative: true}, Cells: cells}
}

func render(t *testing.T, recs ...*record.Record) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Write(&buf, recs, report.Options{Now: func() time.Time { return time.Unix(0, 0) }}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var svgElement = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// checkSelfContained fails on anything the page would fetch or run, and
// on an SVG that is not well-formed XML; it returns the SVGs' titles.
func checkSelfContained(t *testing.T, page string) []string {
	t.Helper()
	for _, bad := range []string{"<script", "<link", "@import", "url(", "src=", `href="http`, "<img", "<iframe", "font-face"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: it must load nothing", bad)
		}
	}
	var titles []string
	for _, s := range svgElement.FindAllString(page, -1) {
		dec := xml.NewDecoder(strings.NewReader(s))
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("SVG not well-formed: %v\n%.300s", err, s)
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "svg" {
				for _, a := range se.Attr {
					if a.Name.Local == "aria-label" {
						titles = append(titles, a.Value)
					}
				}
			}
		}
	}
	return titles
}

func TestReportSections(t *testing.T) {
	rec := newRecord(cell(t, "lua-release", 4, false), cell(t, "set-nx-ex", 8, false))
	page := render(t, rec)
	titles := checkSelfContained(t, page)
	want := []string{"acquire latency by percentile", "acquisitions per second", "acquire p99 per second",
		"overlaps per second (new entries over the limit)",
		"acquisitions per client: lua-release ×4 (Jain 0.900)", "acquisitions per client: set-nx-ex ×8 (Jain 0.900)"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Errorf("charts\n%q\nwant\n%q", titles, want)
	}
	for _, s := range []string{"<h2>Run test-run</h2>", "<th>acq/s</th>", "<td>lua-release</td>", "<td>1200</td>",
		"Lost updates are totals", "<details>", "&#34;variants&#34;", "lua-release ×4", "90%", "99.9%"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(page, " raw") {
		t.Error("closed loop: the raw spectrum equals the corrected one and must not be drawn")
	}
	if strings.Contains(page, "Red dashed lines") {
		t.Error("fault legend without faults")
	}
}

func TestReportOpenLoopDrawsRaw(t *testing.T) {
	page := render(t, newRecord(cell(t, "lua-release", 4, true)))
	checkSelfContained(t, page)
	for _, s := range []string{"lua-release ×4 raw", "<th>offered/s</th>"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

func TestReportFaults(t *testing.T) {
	c := cell(t, "lua-release", 4, false)
	c.Faults = []measure.FaultEvent{{AtS: 1, Action: "pause", Node: "master"}, {AtS: 1.3, Action: "resume", Node: "master"},
		{AtS: 1.02, Action: "pause", Node: "master"}} // the same event seen by another cell
	d := cell(t, "set-nx-ex", 4, false)
	d.Faults = c.Faults[:1]
	page := render(t, newRecord(c, d))
	checkSelfContained(t, page)
	// Three time charts, each marking the pause once and the resume once.
	if n := strings.Count(page, ">pause master<"); n != 3 {
		t.Errorf("pause marked %d times, want 3 (once per time chart)", n)
	}
	if n := strings.Count(page, ">resume master<"); n != 3 {
		t.Errorf("resume marked %d times, want 3", n)
	}
	if !strings.Contains(page, "Red dashed lines mark the fault events") {
		t.Error("no legend for the fault marks")
	}
}

func TestReportSweep(t *testing.T) {
	var cells []record.Cell
	v := record.SweepVariant{Variant: "lua-release"}
	for _, n := range []int{1, 2, 4, 8} {
		c := cell(t, "lua-release", n, false)
		c.ThroughputPerS = capacity.USL{Lambda: 1000, Sigma: 0.1, Kappa: 0.01}.Throughput(float64(n))
		cells = append(cells, c)
		v.Points = append(v.Points, record.NewSweepPoint(&c, nil))
	}
	v.Points[3].Failed = []string{"acquire.p99<5ms (got 6ms)"}
	v.Analyze("clients", 0.05, 0, 0)
	if v.USL == nil {
		t.Fatalf("no fit: %s", v.FitError)
	}
	rec := newRecord(cells...)
	rec.Sweep = &record.Sweep{By: "clients", SLO: []string{"acquire.p99<5ms"}, MinGain: 0.05, Variants: []record.SweepVariant{v}}
	page := render(t, rec)
	titles := checkSelfContained(t, page)
	if titles[0] != "sweep: lua-release" {
		t.Errorf("first chart %q, want the sweep", titles[0])
	}
	for _, s := range []string{"USL fit (R²=", "measured, within the SLO", "measured, SLO broken", "highest throughput within the SLO"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

func TestReportRepetitionsAndRecords(t *testing.T) {
	a, b := cell(t, "lua-release", 4, false), cell(t, "lua-release", 4, false)
	b.Repetition = 2
	repeated := newRecord(a, b)
	repeated.Config.Repeat = 2
	older := newRecord(cell(t, "set-nx-ex", 2, false))
	older.RunID = "older-run"
	older.Cells[0].Fairness.PerClient = nil // a record from before per-client counts
	failed := newRecord(record.Cell{Variant: "redlock", Clients: 2, Error: "topology failed"})
	failed.RunID = "failed-run"
	page := render(t, repeated, older, failed)
	titles := checkSelfContained(t, page)
	for _, s := range []string{`href="#run-1"`, `<section id="run-3">`, "Run older-run", "the charts show the first repetition",
		"no per-client counts", "No cell ran without error", "error: topology failed"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if n := strings.Count(strings.Join(titles, "\n"), "acquisitions per client: lua-release"); n != 1 {
		t.Errorf("%d fairness charts of the repeated cell, want 1 (its first repetition)", n)
	}
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "report.html")
	// lockbench creates no directory but its own results/runs/.
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteFile(path, []*record.Record{newRecord(cell(t, "lua-release", 2, false))}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(data, []byte("</html>\n")) {
		t.Fatalf("%v: %.100s", err, data)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := report.Write(io.Discard, nil, report.Options{}); err == nil {
		t.Error("a report of no records must fail")
	}
}

// controlRecord is a comparison of a lock that kept exclusion and the
// none control, whose throughput and overlaps are twenty times the lock's.
func controlRecord(t *testing.T) *record.Record {
	lock, control := cell(t, "lua-release", 4, false), cell(t, "none", 4, false)
	lock.Violations = record.Violations{MaxOccupancy: 1, CriticalSections: 3000}
	control.Violations = record.Violations{MaxOccupancy: 4, Overlaps: 500, LostUpdates: 300, CriticalSections: 3000}
	for i := range control.Series {
		control.Series[i].Acquisitions *= 20
		control.Series[i].Overlaps = 250
	}
	control.ThroughputPerS *= 20
	return newRecord(control, lock)
}

// The page leads with the verdict: the conclusions, then the summary
// table with the verdict column, then every figure folded, then charts.
func TestReportLeadsWithVerdict(t *testing.T) {
	page := render(t, controlRecord(t))
	checkSelfContained(t, page)
	order := []string{`<div class="verdict" id="run-1-verdict">`,
		"kept exclusion: lua-release (1 of 1; none is the control: 4 holders)",
		"fastest of those: lua-release 1200 acq/s",
		`<table class="summary">`, "<th>verdict</th>", `<td class="broke">4 holders</td>`, `<td class="safe">safe</td>`,
		`<details class="all"><summary>All figures`, "<th>max occ</th>", "<svg ", "Generated "}
	at := 0
	for _, s := range order {
		i := strings.Index(page[at:], s)
		if i < 0 {
			t.Fatalf("page lacks %q after the one before it (%q)", s, order)
		}
		at += i
	}
	if summary := page[strings.Index(page, `<table class="summary">`):strings.Index(page, `<details class="all">`)]; strings.Contains(summary, "<th>max occ</th>") ||
		!strings.Contains(summary, "<th>overlaps</th>") || !strings.Contains(summary, "<th>lost upd</th>") {
		t.Errorf("the summary table is not the compact one:\n%s", summary)
	}
}

// A control twenty times the lock's throughput and overlaps is drawn on
// a panel of its own scale; two like cells share one.
func TestReportOutlierOwnPanel(t *testing.T) {
	page := render(t, controlRecord(t))
	if n := strings.Count(page, ">on its own scale: none ×4<"); n != 2 {
		t.Errorf("the control has its own panel in %d charts, want 2 (acquisitions and overlaps per second)", n)
	}
	titles := checkSelfContained(t, page)
	if titles[1] != "acquisitions per second" || titles[3] != "overlaps per second (new entries over the limit)" {
		t.Errorf("chart titles %q: the panels of a chart are one chart", titles)
	}
	like := render(t, newRecord(cell(t, "lua-release", 4, false), cell(t, "set-nx-ex", 4, false)))
	if strings.Contains(like, "on its own scale") {
		t.Error("cells of like figures were split into panels")
	}
}

// svgItem matches, in order, the paths and the texts of an SVG.
var (
	svgItem  = regexp.MustCompile(`<path d="([^"]*)"|<text x="([0-9.]+)"[^>]*>([^<]*)</text>`)
	pathMove = regexp.MustCompile(`[ML](-?[0-9.]+),`)
)

// Legends sit beside the plots, not on the data: in every chart, each
// legend entry (a cell's label) starts right of every line drawn (data,
// grid, axes), its own thumbnail apart.
func TestReportLegendsOutsidePlots(t *testing.T) {
	page := render(t, controlRecord(t))
	checked := 0
	for _, chart := range svgElement.FindAllString(page, -1) {
		legendX := math.Inf(1)
		var pathsX []float64 // the rightmost x of each path
		for _, m := range svgItem.FindAllStringSubmatch(chart, -1) {
			if m[1] != "" {
				right := math.Inf(-1)
				for _, x := range pathMove.FindAllStringSubmatch(m[1], -1) {
					v, _ := strconv.ParseFloat(x[1], 64)
					right = math.Max(right, v)
				}
				pathsX = append(pathsX, right)
				continue
			}
			if text := html.UnescapeString(m[3]); strings.HasPrefix(text, "lua-release ×4") || strings.HasPrefix(text, "none ×4") {
				x, _ := strconv.ParseFloat(m[2], 64)
				legendX = math.Min(legendX, x)
				pathsX = pathsX[:len(pathsX)-1] // the entry's thumbnail
			}
		}
		if math.IsInf(legendX, 1) {
			continue // no legend: a fairness chart
		}
		checked++
		if right := slices.Max(pathsX); legendX <= right {
			t.Errorf("a legend entry at x=%.1f, left of a line reaching x=%.1f: the legend is on the plot\n%.200s", legendX, right, chart)
		}
	}
	if checked != 4 {
		t.Errorf("%d charts with legends, want 4 (the spectrum and three over time)", checked)
	}
}
