package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
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

// live is the progress line and the metrics server of one run; a nil part
// is off.
type live struct {
	stderr   io.Writer
	renderer *progress.Renderer
	exporter *progress.Exporter
	server   *progress.Server
}

// startLive opens the metrics address, before anything of the run starts,
// and starts the progress line unless quiet.
func startLive(f liveFlags, p plan.Plan, stderr io.Writer) (*live, error) {
	l := &live{stderr: stderr}
	if f.metricsAddr != "" {
		l.exporter = progress.NewExporter()
		srv, err := progress.Listen(f.metricsAddr, l.exporter)
		if err != nil {
			return nil, usagef("--metrics-addr: %w", err)
		}
		l.server = srv
		fmt.Fprintf(stderr, "lockbench: metrics on http://%s/metrics\n", srv.Addr())
	}
	if !f.quiet {
		var cellTime time.Duration
		if p.Workload.Ops == 0 {
			cellTime = p.Workload.Warmup + p.Workload.Duration
		}
		opts := progress.Options{Terminal: isTerminal(stderr), Interval: f.interval, CellTime: cellTime}
		if f, ok := stderr.(*os.File); ok && opts.Terminal {
			opts.Width = func() int { return windowWidth(f) }
		}
		l.renderer = progress.New(stderr, opts)
		l.renderer.Start()
	}
	return l, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// cell shows c from now on, after its line if any.
func (l *live) cell(c runner.CellStart, line string) {
	if line != "" {
		l.println(line)
	}
	shown := progressCell(c)
	if l.renderer != nil {
		l.renderer.Cell(shown)
	}
	if l.exporter != nil {
		l.exporter.Cell(shown)
	}
}

// progressCell is the runner's cell as progress shows it.
func progressCell(c runner.CellStart) progress.Cell {
	return progress.Cell{Index: c.Index, Total: c.Total, Variant: c.Variant, Clients: c.Clients,
		Repetition: c.Repetition, Repeat: c.Repeat, Live: c.Live}
}

// println writes a line above the progress line.
func (l *live) println(line string) {
	if l.renderer != nil {
		l.renderer.Println(line)
		return
	}
	fmt.Fprintln(l.stderr, line)
}

// stop ends the progress line and the metrics server; it may be called
// again.
func (l *live) stop() {
	if l.renderer != nil {
		l.renderer.Stop()
		l.renderer = nil
	}
	if l.server != nil {
		if err := l.server.Close(); err != nil {
			fmt.Fprintf(l.stderr, "lockbench: metrics server: %v\n", err)
		}
		l.server = nil
	}
}
