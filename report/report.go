package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// Options say what the page is for; the zero value is a page without a
// title of its own.
type Options struct {
	// Title heads the page; default "lockbench report".
	Title string
	// Now stamps the page; default time.Now. Tests fix it.
	Now func() time.Time
}

// page is what the template renders.
type page struct {
	Title     string
	Generated string
	Records   []section
}

// section is one record on the page.
type section struct {
	ID, RunID   string
	Interrupted bool
	// Conclusions and the summary table (render.CompactTable) lead the
	// section; the wide table (render.Table), Header and Rows, follows
	// folded.
	Conclusions   []string
	SummaryHeader []string
	SummaryRows   []summaryRow
	CostHint      string
	Header        []string
	Rows          [][]string
	Notes         []string
	Config        string
	Repeated      bool
	Spectrum      template.HTML
	Throughput    template.HTML
	P99           template.HTML
	Overlaps      template.HTML
	Faults        bool
	Fairness      []template.HTML
	NoPerClient   bool
	Sweeps        []sweepSection
	ScaleOuts     []sweepSection
	Charted       int
}

// summaryRow is a row of the summary table: its figures, and its verdict
// apart, classed safe, broke or nodata for its color.
type summaryRow struct {
	Cells          []string
	Verdict, Class string
}

// summaryRows splits the verdict, the compact table's last column, off
// body.
func summaryRows(body [][]string) []summaryRow {
	var out []summaryRow
	for _, row := range body {
		r := summaryRow{Cells: row[:len(row)-1], Verdict: row[len(row)-1], Class: "broke"}
		switch r.Verdict {
		case render.Safe:
			r.Class = "safe"
		case render.NoData:
			r.Class = "nodata"
		}
		out = append(out, r)
	}
	return out
}

// sweepSection is one variant's sweep.
type sweepSection struct {
	Variant string
	Chart   template.HTML
	Lines   []string
}

// Write renders recs as one HTML page to w, a section per record.
func Write(w io.Writer, recs []*record.Record, opts Options) error {
	if len(recs) == 0 {
		return errors.New("report: no records")
	}
	if opts.Title == "" {
		opts.Title = "lockbench report"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	pg := page{Title: opts.Title, Generated: opts.Now().UTC().Format(time.RFC3339)}
	for i, rec := range recs {
		s, err := newSection(rec)
		if err != nil {
			return fmt.Errorf("report: run %s: %w", rec.RunID, err)
		}
		s.ID = fmt.Sprintf("run-%d", i+1)
		pg.Records = append(pg.Records, s)
	}
	return pageTemplate.Execute(w, pg)
}

// WriteFile renders recs to path atomically (record.WriteAtomic).
func WriteFile(path string, recs []*record.Record, opts Options) error {
	var buf bytes.Buffer
	if err := Write(&buf, recs, opts); err != nil {
		return err
	}
	return record.WriteAtomic(path, buf.Bytes())
}

// newSection renders one record's table, configuration and charts.
func newSection(rec *record.Record) (section, error) {
	s := section{RunID: rec.RunID, Interrupted: rec.Interrupted, Notes: render.Notes(rec), Repeated: record.Repeated(rec)}
	s.Header, s.Rows = render.Table(rec)
	s.Conclusions = render.Conclusions(rec)
	header, body := render.CompactTable(rec)
	s.SummaryHeader, s.SummaryRows = header, summaryRows(body)
	s.CostHint = "cmds/acq: the commands the clients sent per acquisition"
	if slices.Contains(header, "cpu µs/acq") {
		s.CostHint = "cpu µs/acq: Redis CPU time per acquisition"
	}
	config, err := json.MarshalIndent(rec.Config, "", "  ")
	if err != nil {
		return s, err
	}
	s.Config = string(config)
	cells := charted(rec)
	s.Charted = len(cells)
	if len(cells) > 0 {
		if s.Spectrum, err = spectrumChart(cells); err != nil {
			return s, err
		}
		if s.Throughput, err = seriesChart("acquisitions per second", "acquisitions/s", cells, perSecond); err != nil {
			return s, err
		}
		if s.P99, err = seriesChart("acquire p99 per second", "acquire p99 (ms)", cells, func(sec secondT, _ float64) (float64, bool) {
			return sec.AcquireP99US / 1000, sec.Acquisitions > 0
		}); err != nil {
			return s, err
		}
		if s.Overlaps, err = seriesChart("overlaps per second (new entries over the limit)", "overlaps", cells, func(sec secondT, _ float64) (float64, bool) {
			return float64(sec.Overlaps), true
		}); err != nil {
			return s, err
		}
	}
	for _, c := range cells {
		s.Faults = s.Faults || len(c.Faults) > 0
		chart, err := fairnessChart(c)
		if err != nil {
			return s, err
		}
		if chart == "" {
			s.NoPerClient = true
			continue
		}
		s.Fairness = append(s.Fairness, chart)
	}
	if rec.Sweep != nil {
		for i := range rec.Sweep.Variants {
			v := &rec.Sweep.Variants[i]
			chart, err := sweepChart(rec.Sweep, v)
			if err != nil {
				return s, err
			}
			s.Sweeps = append(s.Sweeps, sweepSection{Variant: v.Variant, Chart: chart, Lines: render.SweepLines(rec.Sweep, v)})
		}
		for i := range rec.Sweep.ScaleOut {
			so := &rec.Sweep.ScaleOut[i]
			chart, err := scaleOutChart(so)
			if err != nil {
				return s, err
			}
			s.ScaleOuts = append(s.ScaleOuts, sweepSection{Variant: so.Variant, Chart: chart, Lines: so.Lines()})
		}
	}
	return s, nil
}

// perSecond is a second's acquisitions per second. The phase's last
// second is usually cut short: its count is scaled to its length, and one
// shorter than a fifth of a second is left out.
func perSecond(sec secondT, elapsedS float64) (float64, bool) {
	length := min(1, elapsedS-float64(sec.T))
	if length < 0.2 {
		return 0, false
	}
	return float64(sec.Acquisitions) / length, true
}
