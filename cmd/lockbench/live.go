package main

import (
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/progress"
	"github.com/lockbench/lockbench/runner"
)

// liveFlags say what a run shows while it goes.
type liveFlags struct {
	quiet       bool
	metricsAddr string
	interval    time.Duration // of the plain progress line
}

func (l *liveFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&l.quiet, "quiet", false, "no progress line on stderr while the run goes")
	fs.StringVar(&l.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://`ADDR`/metrics while the run goes (127.0.0.1:9100; port 0 picks one)")
	fs.DurationVar(&l.interval, "progress-interval", 5*time.Second, "how often a plain progress line is written when stderr is not a terminal")
	_ = fs.MarkHidden("progress-interval")
}

// startLive opens the metrics address, before anything of the run starts,
// and starts the progress line unless quiet.
func startLive(f liveFlags, p plan.Plan, stderr io.Writer) (*progress.Live, error) {
	o := progress.LiveOptions{Quiet: f.quiet, MetricsAddr: f.metricsAddr, Interval: f.interval}
	if p.Workload.Ops == 0 {
		o.CellTime = p.Workload.Warmup + p.Workload.Duration
	}
	l, err := progress.Start(stderr, o)
	if err != nil {
		return nil, usagef("--metrics-addr: %w", err)
	}
	return l, nil
}

// progressCell is the runner's cell as progress shows it.
func progressCell(c runner.CellStart) progress.Cell {
	return progress.Cell{Index: c.Index, Total: c.Total, Variant: c.Variant, Clients: c.Clients,
		Repetition: c.Repetition, Repeat: c.Repeat, Live: c.Live}
}
