package results

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/capacity"
)

// Sweep is what lockbench sweep found: per variant, the steps it ran
// upward in clients or offered rate, where it stopped and why, and the
// capacity those steps imply.
type Sweep struct {
	// By is "clients" or "rate": what the steps raise.
	By string `json:"by"`
	// SLO are the thresholds every step must meet.
	SLO []string `json:"slo"`
	// MinGain is the throughput gain over the best step so far below which
	// a step counts as not rising.
	MinGain float64 `json:"min_gain"`
	// TargetRate and MaxUtilization are the node plan's inputs (0: none).
	TargetRate     float64        `json:"target_rate,omitempty"`
	MaxUtilization float64        `json:"max_utilization,omitempty"`
	Variants       []SweepVariant `json:"variants"`
}

// SweepVariant is one variant's sweep.
type SweepVariant struct {
	Variant string       `json:"variant"`
	Points  []SweepPoint `json:"points"`
	// Stop says why the steps ended.
	Stop string `json:"stop"`
	// Best is the index in Points of the highest throughput within the
	// SLO; -1 when no step met it.
	Best int `json:"best"`
	// Knee is the index in Points of the last step before throughput
	// stopped rising.
	Knee int `json:"knee"`
	// USL is the scalability model fitted to the points of a clients
	// sweep; FitError says why there is none.
	USL      *USL   `json:"usl,omitempty"`
	FitError string `json:"fit_error,omitempty"`
	// Nodes is the plan of Redis nodes (masters) for TargetRate from the
	// Redis CPU per acquisition at Best; NodesError says why there is none.
	Nodes      *NodePlan `json:"nodes,omitempty"`
	NodesError string    `json:"nodes_error,omitempty"`
}

// USL is Gunther's Universal Scalability Law fitted to a clients sweep:
// X(N) = λN / (1 + σ(N−1) + κN(N−1)) (see capacity.USL).
type USL struct {
	Lambda float64 `json:"lambda"` // throughput of one client, /s
	Sigma  float64 `json:"sigma"`  // contention (serial fraction)
	Kappa  float64 `json:"kappa"`  // coherency (crosstalk)
	R2     float64 `json:"r2"`     // coefficient of determination of the fit
	Points int     `json:"points"` // number of points fitted
}

// Throughput is the model's throughput at concurrency n.
func (u USL) Throughput(n float64) float64 { return capacity.USL(u).Throughput(n) }

// Peak is the concurrency where the model's throughput peaks, and that
// throughput (see capacity.USL.Peak).
func (u USL) Peak() (n, x float64) { return capacity.USL(u).Peak() }

// NodePlan is how many Redis nodes (masters: one main thread each) a
// target acquisition rate needs (see capacity.PlanNodes).
type NodePlan struct {
	TargetRate      float64 `json:"target_rate"`            // acquisitions/s wanted
	CPUMicrosPerAcq float64 `json:"cpu_us_per_acquisition"` // measured Redis CPU per acquisition, µs
	MaxUtilization  float64 `json:"max_utilization"`        // planned busy fraction of a Redis core
	PerNode         float64 `json:"per_node"`               // acquisitions/s one node serves at MaxUtilization
	Nodes           int     `json:"nodes"`                  // nodes needed, at least 1
	Assumption      string  `json:"assumption"`             // the assumptions, in one sentence
}

// SweepPoint is one step of a sweep, taken from its cell.
type SweepPoint struct {
	Clients        int     `json:"clients"`
	OfferedPerS    float64 `json:"offered_per_s,omitempty"`
	ThroughputPerS float64 `json:"throughput_per_s"`
	AcquireP99US   float64 `json:"acquire_p99_us"`
	// CPUMicrosPerAcquisition is Redis' CPU per acquisition; 0 unknown.
	CPUMicrosPerAcquisition float64 `json:"cpu_us_per_acquisition,omitempty"`
	// Failed lists the SLO thresholds the step broke.
	Failed []string `json:"failed,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// Within reports whether the step ran and met the SLO.
func (p SweepPoint) Within() bool { return p.Error == "" && len(p.Failed) == 0 }

// NewSweepPoint takes a step's figures from its cell and checks the SLO.
func NewSweepPoint(c *Cell, slo []Threshold) SweepPoint {
	p := SweepPoint{Clients: c.Clients, OfferedPerS: c.OfferedPerS, ThroughputPerS: c.ThroughputPerS,
		AcquireP99US: c.AcquireLatencyUS.P99, CPUMicrosPerAcquisition: serverValue(c, func(s *ServerCost) float64 { return s.CPUMicrosPerAcquisition }),
		Error: c.Error}
	if c.Error != "" {
		return p
	}
	for _, t := range slo {
		if ok, got := t.Holds(c); !ok {
			p.Failed = append(p.Failed, fmt.Sprintf("%s (got %s)", t.Text, figures[t.metric].Format(got)))
		}
	}
	return p
}

// Analyze fills in the best step, the knee, the USL fit (clients sweeps)
// and the node plan from v's points.
func (v *SweepVariant) Analyze(by string, minGain, targetRate, maxUtilization float64) {
	v.Best = -1
	var (
		measured []capacity.Point
		at       []int // index in Points of each measured point
	)
	for i, p := range v.Points {
		if p.Within() && (v.Best < 0 || p.ThroughputPerS > v.Points[v.Best].ThroughputPerS) {
			v.Best = i
		}
		if p.Error == "" && p.ThroughputPerS > 0 {
			n := float64(p.Clients)
			if by == "rate" {
				n = p.OfferedPerS
			}
			measured = append(measured, capacity.Point{N: n, X: p.ThroughputPerS})
			at = append(at, i)
		}
	}
	v.Knee = -1
	if len(measured) > 0 {
		v.Knee = at[capacity.Knee(measured, minGain)]
	}
	if by == "clients" {
		if u, err := capacity.FitUSL(measured); err != nil {
			v.FitError = err.Error()
		} else {
			fit := USL(u)
			v.USL = &fit
		}
	}
	if targetRate <= 0 {
		return
	}
	if v.Best < 0 {
		v.NodesError = "no step met the SLO"
		return
	}
	plan, err := capacity.PlanNodes(targetRate, v.Points[v.Best].CPUMicrosPerAcquisition, maxUtilization)
	if err != nil {
		v.NodesError = err.Error()
		if v.Points[v.Best].CPUMicrosPerAcquisition == 0 {
			v.NodesError = "the servers did not report their CPU time"
		}
		return
	}
	nodes := NodePlan(plan)
	v.Nodes = &nodes
}

// RenderSweep writes a sweep's steps per variant and what they imply, as a
// text table or markdown.
func RenderSweep(w io.Writer, rec *Record, markdown bool) error {
	s := rec.Sweep
	if s == nil {
		return fmt.Errorf("results: record %s has no sweep", rec.RunID)
	}
	row := tw.CellConfig{Alignment: tw.CellAlignment{Global: tw.AlignRight}}
	for _, v := range s.Variants {
		t := TextTable(w, row)
		if markdown {
			t = newTable(w, row, renderer.NewMarkdown())
			fmt.Fprintf(w, "\n### %s\n\n", v.Variant)
		} else {
			fmt.Fprintf(w, "\n%s\n", v.Variant)
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
			row := []string{strconv.Itoa(p.Clients), offered, formatRate(p.ThroughputPerS), FormatMicros(p.AcquireP99US), cpu, slo, model}
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
func SweepLines(s *Sweep, v *SweepVariant) []string { return sweepLines(s, v) }

// sweepLines are the conclusions of one variant's sweep.
func sweepLines(s *Sweep, v *SweepVariant) []string {
	unit := func(p SweepPoint) string {
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
		lines = append(lines, "no USL fit: "+v.FitError)
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
