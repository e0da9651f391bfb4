package runner

import (
	"context"
	"fmt"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
)

// SweepOptions say how a sweep steps upward and when it stops.
type SweepOptions struct {
	// Clients are the client counts to step through, ascending, for a
	// sweep of concurrency; Rates the offered rates (open loop, at most
	// the plan's first client count in progress) for a sweep of rate.
	// Exactly one is set.
	Clients []int
	Rates   []float64
	// SLO are thresholds every step must meet; the first step that breaks
	// one is the last of its variant.
	SLO []record.Threshold
	// MinGain is the throughput gain over the best step so far that counts
	// as rising; after Patience steps in a row without it, the variant's
	// sweep stops. Defaults 0.05 and 2.
	MinGain  float64
	Patience int
	// TargetRate, when positive, asks for a plan of Redis nodes at
	// MaxUtilization (default 0.7) of a Redis core per node.
	TargetRate, MaxUtilization float64
	// OnStep, when set, is called before each step.
	OnStep func(variant string, step int, label string)
}

// Sweep runs each variant of p at rising client counts (or offered rates)
// until the SLO breaks, throughput stops rising, or the steps run out, and
// returns one record with every step's cell and the analysis in its Sweep.
// Each step is a run of its own (a fresh topology when lockbench starts
// it), under one run id.
func Sweep(ctx context.Context, p plan.Plan, o SweepOptions, opts Options) (*record.Record, error) {
	if o.MinGain <= 0 {
		o.MinGain = 0.05
	}
	if o.Patience <= 0 {
		o.Patience = 2
	}
	if o.MaxUtilization <= 0 {
		o.MaxUtilization = 0.7
	}
	if opts.RunID == "" {
		opts.RunID = NewRunID()
	}
	by, steps := "clients", len(o.Clients)
	if len(o.Rates) > 0 {
		by, steps = "rate", len(o.Rates)
	}
	sweep := &record.Sweep{By: by, MinGain: o.MinGain, TargetRate: o.TargetRate, MaxUtilization: o.MaxUtilization}
	for _, t := range o.SLO {
		sweep.SLO = append(sweep.SLO, t.Text)
	}
	var out *record.Record
	for _, variant := range p.Variants {
		v := record.SweepVariant{Variant: variant, Stop: "the last step ran"}
		best, flat := 0.0, 0
		for i := 0; i < steps && ctx.Err() == nil; i++ {
			step := p
			step.Variants = []string{variant}
			label := ""
			if by == "clients" {
				step.Clients = []int{o.Clients[i]}
				label = fmt.Sprintf("%d clients", o.Clients[i])
			} else {
				step.Clients = p.Clients[:1]
				step.Workload.Rate = o.Rates[i]
				label = fmt.Sprintf("%.0f/s offered", o.Rates[i])
			}
			if o.OnStep != nil {
				o.OnStep(variant, i, label)
			}
			rec, err := Run(ctx, step, opts)
			if err != nil {
				if ctx.Err() != nil {
					break // keep what the steps before measured
				}
				return nil, err
			}
			if out == nil {
				first := *rec
				out = &first
				out.Cells = nil
				out.Config = configOf(p)
				out.Config.Topology = rec.Config.Topology
			}
			out.Cells = append(out.Cells, rec.Cells...)
			out.Finished, out.Interrupted = rec.Finished, rec.Interrupted
			if len(rec.Cells) == 0 {
				break
			}
			c := &rec.Cells[0]
			point := record.NewSweepPoint(c, o.SLO)
			v.Points = append(v.Points, point)
			if stop := stopReason(point, c, label, o); stop != "" {
				v.Stop = stop
				break
			}
			if c.ThroughputPerS > best*(1+o.MinGain) {
				best, flat = c.ThroughputPerS, 0
			} else if flat++; flat >= o.Patience {
				v.Stop = fmt.Sprintf("throughput stopped rising: no gain of %.0f%% over %.0f acq/s in %d steps (at %s)", 100*o.MinGain, best, flat, label)
				break
			}
		}
		if ctx.Err() != nil {
			v.Stop = "interrupted"
		}
		v.Analyze(by, o.MinGain, o.TargetRate, o.MaxUtilization)
		sweep.Variants = append(sweep.Variants, v)
		if ctx.Err() != nil {
			break
		}
	}
	if out == nil {
		return nil, ctx.Err()
	}
	out.Sweep = sweep
	return out, nil
}

// stopReason says why a step ends its variant's sweep, "" when it does not.
func stopReason(p record.SweepPoint, c *record.Cell, label string, o SweepOptions) string {
	switch {
	case p.Error != "":
		return fmt.Sprintf("the step at %s failed: %s", label, p.Error)
	case len(p.Failed) > 0:
		return fmt.Sprintf("SLO broken at %s: %s", label, p.Failed[0])
	case len(o.Rates) > 0 && (c.Dropped > 0 || c.ThroughputPerS < 0.95*c.OfferedPerS):
		return fmt.Sprintf("saturated at %s: %.0f acq/s achieved, %d arrivals dropped", label, c.ThroughputPerS, c.Dropped)
	}
	return ""
}
