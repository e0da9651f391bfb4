package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mattn/go-isatty"
)

// LiveOptions say what a run shows while it goes.
type LiveOptions struct {
	// Quiet: no progress line. Default false.
	Quiet bool
	// MetricsAddr, when set, is where the Prometheus metrics are served
	// (127.0.0.1:9100; port 0 picks one). Default none.
	MetricsAddr string
	// Interval is how often a plain progress line is written when the
	// writer is not a terminal. Default 5 s.
	Interval time.Duration
	// CellTime is the planned time of one cell, as Options.CellTime.
	CellTime time.Duration
}

// Live is the progress line and the metrics server of one run, on a
// writer (stderr); a part not asked for is off.
type Live struct {
	w        io.Writer
	renderer *Renderer
	exporter *Exporter
	server   *Server
}

// Start opens the metrics address, before anything of the run starts,
// and starts the progress line on w unless o.Quiet. The error is
// Listen's: the address cannot be listened on.
func Start(w io.Writer, o LiveOptions) (*Live, error) {
	l := &Live{w: w}
	if o.MetricsAddr != "" {
		l.exporter = NewExporter()
		srv, err := Listen(o.MetricsAddr, l.exporter)
		if err != nil {
			return nil, err
		}
		l.server = srv
		fmt.Fprintf(w, "lockbench: metrics on http://%s/metrics\n", srv.Addr())
	}
	if !o.Quiet {
		opts := Options{Terminal: IsTerminal(w), Interval: o.Interval, CellTime: o.CellTime}
		if f, ok := w.(*os.File); ok && opts.Terminal {
			opts.Width = func() int { return windowWidth(f) }
		}
		l.renderer = New(w, opts)
		l.renderer.Start()
	}
	return l, nil
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// TerminalWidth is $COLUMNS when it is a positive number, else the width
// of the terminal w is, else 0 (unknown).
func TerminalWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && IsTerminal(w) {
		return windowWidth(f)
	}
	return 0
}

// Cell shows c from now on, after its line if any.
func (l *Live) Cell(c Cell, line string) {
	if line != "" {
		l.Println(line)
	}
	if l.renderer != nil {
		l.renderer.Cell(c)
	}
	if l.exporter != nil {
		l.exporter.Cell(c)
	}
}

// Println writes a line above the progress line.
func (l *Live) Println(line string) {
	if l.renderer != nil {
		l.renderer.Println(line)
		return
	}
	fmt.Fprintln(l.w, line)
}

// Stop ends the progress line and the metrics server; it may be called
// again.
func (l *Live) Stop() {
	if l.renderer != nil {
		l.renderer.Stop()
		l.renderer = nil
	}
	if l.server != nil {
		if err := l.server.Close(); err != nil {
			fmt.Fprintf(l.w, "lockbench: metrics server: %v\n", err)
		}
		l.server = nil
	}
}
