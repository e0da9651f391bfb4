package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/lockbench/lockbench/workloads"
)

// Options say how a Renderer draws.
type Options struct {
	// Terminal redraws one line in place (carriage return and erase line)
	// every Tick; otherwise a plain line is written every Interval.
	// Default false.
	Terminal bool
	// Interval is how often a plain line is written. Default 5 s.
	Interval time.Duration
	// Tick is how often the figures are sampled (and redrawn on a
	// terminal); the rate and p99 are of the last tick. Default 1 s.
	Tick time.Duration
	// CellTime is the planned time of one cell (warm-up + duration); 0
	// when unknown (a run by ops), and no time left is shown. Default 0.
	CellTime time.Duration
	// Width, when set, is the terminal's width in columns, read at every
	// redraw (the terminal may be resized): a terminal's line is cut to
	// one column less, so that it never wraps (a wrapped line would leave
	// stale rows that the carriage return does not erase). 0: no cut.
	// Default nil.
	Width func() int
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Renderer draws the progress of a run on w: elapsed and remaining time,
// the current cell, acquisitions per second and acquire p99 of the last
// tick, overlaps so far. Its methods are safe for concurrent use.
type Renderer struct {
	w    io.Writer
	opts Options

	mu        sync.Mutex
	started   time.Time
	cell      Cell
	cellAt    time.Time
	prev      workloads.LiveSnapshot // at the last tick
	prevAt    time.Time
	printedAt time.Time // of the last plain line
	drawn     bool      // a terminal line is on screen
	stop      chan struct{}
	done      chan struct{}
}

// New returns a Renderer drawing on w; Start starts its clock.
func New(w io.Writer, opts Options) *Renderer {
	if opts.Interval <= 0 {
		opts.Interval = 5 * time.Second
	}
	if opts.Tick <= 0 {
		opts.Tick = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	now := opts.Now()
	return &Renderer{w: w, opts: opts, started: now, printedAt: now}
}

// Start ticks in a goroutine of its own until Stop.
func (r *Renderer) Start() {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.done)
		t := time.NewTicker(r.opts.Tick)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				r.Tick()
			}
		}
	}()
}

// Stop ends the ticking started by Start and erases a terminal line.
func (r *Renderer) Stop() {
	if r.stop != nil {
		close(r.stop)
		<-r.done
		r.stop = nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.erase()
}

// Cell starts showing the cell c.
func (r *Renderer) Cell(c Cell) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cell, r.cellAt = c, r.opts.Now()
	r.prev, r.prevAt = workloads.LiveSnapshot{}, r.cellAt
}

// Println writes a line of its own, above a terminal's progress line.
func (r *Renderer) Println(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.erase()
	fmt.Fprintln(r.w, line)
}

// Tick samples the figures and draws them when it is time.
func (r *Renderer) Tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cell.Live == nil {
		return // no cell yet
	}
	now := r.opts.Now()
	snap := r.cell.Live.Snapshot()
	last, took := snap.Sub(r.prev), now.Sub(r.prevAt)
	r.prev, r.prevAt = snap, now
	line := r.line(now, snap, last, took)
	switch {
	case r.opts.Terminal:
		if r.opts.Width != nil {
			line = cut(line, r.opts.Width()-1)
		}
		fmt.Fprint(r.w, "\r\x1b[K"+line)
		r.drawn = true
	case now.Sub(r.printedAt) >= r.opts.Interval-r.opts.Tick/2: // a tick may come a little early
		fmt.Fprintln(r.w, line)
		r.printedAt = now
	}
}

// erase clears a terminal's progress line; the caller holds mu.
func (r *Renderer) erase() {
	if r.drawn {
		fmt.Fprint(r.w, "\r\x1b[K")
		r.drawn = false
	}
}

// line is the progress line: snap is the cell so far, last its last tick,
// which took took.
func (r *Renderer) line(now time.Time, snap, last workloads.LiveSnapshot, took time.Duration) string {
	var b strings.Builder
	elapsed := now.Sub(r.started)
	fmt.Fprintf(&b, "lockbench: %s elapsed", clock(elapsed))
	if r.opts.CellTime > 0 {
		planned := time.Duration(r.cell.Total) * r.opts.CellTime
		done := time.Duration(r.cell.Index)*r.opts.CellTime + min(now.Sub(r.cellAt), r.opts.CellTime)
		fmt.Fprintf(&b, ", %s left", clock(max(planned-done, 0)))
	}
	fmt.Fprintf(&b, " · [%d/%d] %s, %d clients", r.cell.Index+1, r.cell.Total, r.cell.Variant, r.cell.Clients)
	if r.cell.Repeat > 1 {
		fmt.Fprintf(&b, ", repetition %d/%d", r.cell.Repetition, r.cell.Repeat)
	}
	rate := 0.0
	if took > 0 {
		rate = float64(last.Acquisitions) / took.Seconds()
	}
	p99 := "-"
	if last.Acquisitions > 0 {
		p99 = latency(last.AcquireQuantile(0.99))
	}
	fmt.Fprintf(&b, " · %.0f acq/s · acquire p99 %s · overlaps %d", rate, p99, snap.Overlaps)
	if snap.Errors+snap.Timeouts > 0 {
		fmt.Fprintf(&b, " · errors %d · timeouts %d", snap.Errors, snap.Timeouts)
	}
	return b.String()
}

// clock formats d as minutes and seconds (1:05), or hours too (1:02:05).
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// latency formats a latency with three significant figures or so.
func latency(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// cut returns line cut to at most width runes (none when width < 1).
func cut(line string, width int) string {
	if width < 1 {
		return line
	}
	n := 0
	for i := range line {
		if n == width {
			return line[:i]
		}
		n++
	}
	return line
}
