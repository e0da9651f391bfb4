package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
)

// The sweep's defaults, where they differ from a run's.
const (
	// DefaultMinGain is SweepOptions.MinGain's default.
	DefaultMinGain = 0.05
	// DefaultPatience is SweepOptions.Patience's default.
	DefaultPatience = 2
	// DefaultMaxUtilization is SweepOptions.MaxUtilization's default.
	DefaultMaxUtilization = 0.7
	// DefaultSweepDuration is a step's measured time.
	DefaultSweepDuration = 5 * time.Second
	// DefaultSweepRateCap is the cap on clients in progress of a sweep of
	// rate.
	DefaultSweepRateCap = 64
)

// DefaultSweepClients are the client counts a sweep of concurrency steps
// through.
var DefaultSweepClients = []int{1, 2, 4, 8, 16, 32, 64, 128}

// ErrBadSweep is wrapped by the error of SweepOptions that are not valid;
// the message names the flag of lockbench sweep and what it accepts.
var ErrBadSweep = errors.New("runner: bad sweep")

// SweepDefaults gives ov the sweep's own client steps (sweeping rates:
// its cap on clients) and duration where neither ov nor the scenario s
// (nil for none) set them.
func SweepDefaults(ov *plan.Overrides, s *plan.Scenario, rates bool) {
	var scenario plan.Scenario
	if s != nil {
		scenario = *s
	}
	if ov.Clients == nil && len(scenario.Clients) == 0 {
		ov.Clients = DefaultSweepClients
		if rates {
			ov.Clients = []int{DefaultSweepRateCap}
		}
	}
	if ov.Duration == nil && ov.Ops == 0 && scenario.Duration == "" {
		ov.Duration = new(DefaultSweepDuration)
	}
}

// Check checks o's steps and fractions (its rates, which lockbench sweep
// parses, it takes as they are): every error wraps ErrBadSweep and names
// the flag.
func (o SweepOptions) Check() error {
	if !slices.IsSorted(o.Clients) || len(slices.Compact(slices.Clone(o.Clients))) != len(o.Clients) {
		return inputerr.Errorf(ErrBadSweep, "--clients: the steps must rise (got %s)", IntList(o.Clients))
	}
	if err := checkNodes(o.Nodes); err != nil {
		return err
	}
	switch {
	case o.MinGain <= 0 || o.MinGain >= 1:
		return inputerr.Errorf(ErrBadSweep, "--min-gain: want a fraction in (0, 1) such as %v (got %v)", DefaultMinGain, o.MinGain)
	case o.TargetRate < 0:
		return inputerr.Errorf(ErrBadSweep, "--target-rate: want acquisitions per second, 0 or more (got %v)", o.TargetRate)
	case o.MaxUtilization <= 0 || o.MaxUtilization > 1:
		return inputerr.Errorf(ErrBadSweep, "--max-cpu: want a fraction in (0, 1] such as %v (got %v)", DefaultMaxUtilization, o.MaxUtilization)
	}
	return nil
}

// IntList writes ns as a comma list: 1,2,4.
func IntList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

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
	// sweep stops. Defaults DefaultMinGain and DefaultPatience.
	MinGain  float64
	Patience int
	// TargetRate, when positive, asks for a plan of Redis nodes at
	// MaxUtilization (default DefaultMaxUtilization) of a Redis core
	// per node.
	TargetRate, MaxUtilization float64
	// Nodes, when set, runs the steps on a local cluster of each of these
	// many masters in turn (with the plan's CPU budget, if any) and sets
	// the record's scale-out: the plan's prediction from the one-node step
	// beside what each size measured. Clients are then per node: N nodes
	// step through N times each count, so that each node serves the load
	// one node served (a node's Redis CPU per acquisition depends on the
	// clients it serves at once).
	Nodes []int
	// OnStep, when set, is called before each step; with Nodes, step
	// counts on over the node counts and label names the nodes.
	OnStep func(variant string, step int, label string)
}

// Sweep runs each variant of p at rising client counts (or offered rates)
// until the SLO breaks, throughput stops rising, or the steps run out, and
// returns one record with every step's cell and the analysis in its Sweep.
// Each step is a run of its own (a fresh topology when lockbench starts
// it), under one run id.
func Sweep(ctx context.Context, p plan.Plan, o SweepOptions, opts Options) (*record.Record, error) {
	if o.MinGain <= 0 {
		o.MinGain = DefaultMinGain
	}
	if o.Patience <= 0 {
		o.Patience = DefaultPatience
	}
	if o.MaxUtilization <= 0 {
		o.MaxUtilization = DefaultMaxUtilization
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
	tops, err := sweepTopologies(p.Topology, o.Nodes)
	if err != nil {
		return nil, err
	}
	var out *record.Record
	keep := func(rec *record.Record) {
		if out == nil {
			first := *rec
			out = &first
			out.Cells = nil
			out.Config = configOf(p)
			out.Config.Topology = rec.Config.Topology
		}
		out.Cells = append(out.Cells, rec.Cells...)
		out.Finished, out.Interrupted = rec.Finished, rec.Interrupted
	}
	for _, variant := range p.Variants {
		for i, top := range tops {
			at := p
			at.Topology = top
			named := o
			if len(o.Nodes) > 0 {
				named.OnStep = nodesOnStep(o.OnStep, o.Nodes[i], i*steps)
				named.Clients = perNode(o.Clients, o.Nodes[i])
			}
			v, err := sweepVariant(ctx, at, variant, by, steps, named, opts, keep)
			if err != nil {
				return nil, err
			}
			if len(o.Nodes) > 0 {
				v.Masters = o.Nodes[i]
			}
			sweep.Variants = append(sweep.Variants, v)
			if ctx.Err() != nil {
				break
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	if out == nil {
		return nil, ctx.Err()
	}
	if len(o.Nodes) > 0 {
		sweep.Nodes = o.Nodes
		sweep.ScaleOut = record.AnalyzeScaleOut(sweep.Variants, p.Topology.NodeCPU(), o.MaxUtilization)
		out.Config.Topology.Name = p.Topology.Name
	}
	out.Sweep = sweep
	return out, nil
}

// sweepVariant runs the steps of one variant on p's topology, giving each
// step's record to keep, and returns them analysed.
func sweepVariant(ctx context.Context, p plan.Plan, variant, by string, steps int, o SweepOptions, opts Options, keep func(*record.Record)) (record.SweepVariant, error) {
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
			return v, err
		}
		keep(rec)
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
	return v, nil
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
