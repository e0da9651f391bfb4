package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/record"
)

// RenderSweep writes a sweep's steps per variant and what they imply, as a
// text table or markdown.
func RenderSweep(w io.Writer, rec *record.Record, markdown bool) error {
	s := rec.Sweep
	if s == nil {
		return fmt.Errorf("render: record %s has no sweep", rec.RunID)
	}
	row := tw.CellConfig{Alignment: tw.CellAlignment{Global: tw.AlignRight}}
	for _, v := range s.Variants {
		t := TextTable(w, row)
		title := v.Variant
		if v.Masters > 0 {
			title = fmt.Sprintf("%s · %d node(s)", v.Variant, v.Masters)
		}
		if markdown {
			t = newTable(w, row, renderer.NewMarkdown())
			fmt.Fprintf(w, "\n### %s\n\n", title)
		} else {
			fmt.Fprintf(w, "\n%s\n", title)
		}
		header := []string{"clients", "offered/s", "acq/s", "acq p99", "cpu µs/acq", "slo", "model acq/s"}
		if s.By == "clients" {
			header = slices.Delete(header, 1, 2)
		} else {
			header = header[:len(header)-1] // the model is of concurrency
		}
		t.Header(header)
		for i, p := range v.Points {
			slo := "ok"
			switch {
			case p.Error != "":
				slo = "error: " + p.Error
			case len(p.Failed) > 0:
				slo = "broken: " + strings.Join(p.Failed, ", ")
			}
			if i == v.Best {
				slo += " (best)"
			}
			model := "-"
			if v.USL != nil {
				model = formatRate(v.USL.Throughput(float64(p.Clients)))
			}
			offered := formatRate(p.OfferedPerS)
			cpu := "-"
			if p.CPUMicrosPerAcquisition > 0 {
				cpu = strconv.FormatFloat(p.CPUMicrosPerAcquisition, 'f', 1, 64)
			}
			row := []string{strconv.Itoa(p.Clients), offered, formatRate(p.ThroughputPerS), record.FormatMicros(p.AcquireP99US), cpu, slo, model}
			if s.By == "clients" {
				row = slices.Delete(row, 1, 2)
			} else {
				row = row[:len(row)-1]
			}
			if err := t.Append(row); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		for _, line := range sweepLines(s, &v) {
			if markdown {
				line = "- " + line
			}
			fmt.Fprintln(w, line)
		}
	}
	if err := renderScaleOut(w, s.ScaleOut, markdown); err != nil {
		return err
	}
	for _, note := range Notes(rec) {
		if markdown {
			note = "\n> " + note
		}
		fmt.Fprintln(w, note)
	}
	return nil
}

// SweepLines are the conclusions of one variant's sweep, as RenderSweep
// prints them below its steps.
func SweepLines(s *record.Sweep, v *record.SweepVariant) []string { return sweepLines(s, v) }

// sweepLines are the conclusions of one variant's sweep.
func sweepLines(s *record.Sweep, v *record.SweepVariant) []string {
	unit := func(p record.SweepPoint) string {
		if s.By == "rate" {
			return fmt.Sprintf("%s/s offered", formatRate(p.OfferedPerS))
		}
		return fmt.Sprintf("%d clients", p.Clients)
	}
	lines := []string{"stopped: " + v.Stop}
	slo := "no SLO given"
	if len(s.SLO) > 0 {
		slo = strings.Join(s.SLO, ", ")
	}
	if v.Best >= 0 {
		b := v.Points[v.Best]
		lines = append(lines, fmt.Sprintf("highest throughput within the SLO (%s): %s acq/s at %s", slo, formatRate(b.ThroughputPerS), unit(b)))
	} else {
		lines = append(lines, fmt.Sprintf("no step met the SLO (%s)", slo))
	}
	switch {
	case v.Knee < 0:
	case v.Knee == len(v.Points)-1:
		lines = append(lines, fmt.Sprintf("no knee: throughput still rose (by %.0f%% or more) at the last step, %s", 100*s.MinGain, unit(v.Points[v.Knee])))
	default:
		lines = append(lines, fmt.Sprintf("knee at %s: throughput rose by less than %.0f%% a step after it", unit(v.Points[v.Knee]), 100*s.MinGain))
	}
	switch {
	case v.USL != nil:
		u := v.USL
		n, x := u.Peak()
		peak := fmt.Sprintf("peak %s acq/s at %.0f clients", formatRate(x), n)
		if math.IsInf(n, 1) {
			peak = "no peak (no coherency cost): throughput levels off at λ/σ"
			if u.Sigma == 0 {
				peak = "no peak: throughput grows linearly"
			}
		}
		lines = append(lines, fmt.Sprintf("USL fit on %d points: λ=%.1f acq/s per client, σ=%.4f (contention), κ=%.6f (coherency), R²=%.3f; model %s",
			u.Points, u.Lambda, u.Sigma, u.Kappa, u.R2, peak))
	case v.FitError != "":
		lines = append(lines, "no record.USL fit: "+v.FitError)
	}
	switch {
	case v.Nodes != nil:
		p := v.Nodes
		lines = append(lines, fmt.Sprintf("%s acq/s need %d Redis node(s) (masters): %.1f µs Redis CPU per acquisition → %s acq/s per node at %.0f%% CPU. %s",
			formatRate(p.TargetRate), p.Nodes, p.CPUMicrosPerAcq, formatRate(p.PerNode), 100*p.MaxUtilization, p.Assumption))
	case v.NodesError != "":
		lines = append(lines, "no node plan: "+v.NodesError)
	}
	return lines
}
