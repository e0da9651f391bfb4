package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lockbench/lockbench/workloads"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }
func newClock() *fakeClock                   { return &fakeClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)} }
func feed(l *workloads.Live, n int, d time.Duration) {
	for i := range n { // over the shards, as the clients feed it
		l.Shard(i).Acquired(d)
	}
}

func TestRendererPlain(t *testing.T) {
	clock := newClock()
	var out bytes.Buffer
	r := New(&out, Options{Interval: 5 * time.Second, CellTime: 10 * time.Second, Now: clock.Now})
	live := &workloads.Live{}
	r.Cell(Cell{Index: 1, Total: 4, Variant: "lua-release", Clients: 16, Repetition: 2, Repeat: 2, Live: live})
	for range 4 {
		clock.advance(time.Second)
		feed(live, 1000, 2*time.Millisecond)
		r.Tick()
	}
	if out.Len() != 0 {
		t.Fatalf("a plain line before the interval: %q", out.String())
	}
	clock.advance(time.Second)
	feed(live, 500, 2*time.Millisecond)
	feed(live, 10, 40*time.Millisecond)
	r.Tick()
	want := "lockbench: 0:05 elapsed, 0:25 left · [2/4] lua-release, 16 clients, repetition 2/2 · 510 acq/s · acquire p99 40.96ms · overlaps 0\n"
	if out.String() != want {
		t.Errorf("plain line\n got %q\nwant %q", out.String(), want)
	}
	if strings.Contains(out.String(), "\r") || strings.Contains(out.String(), "\x1b") {
		t.Errorf("control characters in a plain line: %q", out.String())
	}
	// The next line comes an interval later.
	out.Reset()
	for range 4 {
		clock.advance(time.Second)
		r.Tick()
	}
	if out.Len() != 0 {
		t.Errorf("a second plain line before the interval: %q", out.String())
	}
	clock.advance(time.Second)
	live.Shard(0).Failed()
	r.Tick()
	if got := out.String(); !strings.HasPrefix(got, "lockbench: 0:10 elapsed, 0:20 left") || !strings.Contains(got, "0 acq/s · acquire p99 - ·") ||
		!strings.Contains(got, "errors 1") {
		t.Errorf("second plain line %q", got)
	}
}

func TestRendererTerminal(t *testing.T) {
	clock := newClock()
	var out bytes.Buffer
	r := New(&out, Options{Terminal: true, Now: clock.Now}) // no cell time: no time left shown
	r.Tick()
	if out.Len() != 0 {
		t.Fatalf("drawn before any cell: %q", out.String())
	}
	live := &workloads.Live{}
	r.Cell(Cell{Total: 1, Variant: "none", Clients: 2, Live: live})
	clock.advance(time.Second)
	feed(live, 100, 100*time.Microsecond)
	r.Tick()
	want := "\r\x1b[Klockbench: 0:01 elapsed · [1/1] none, 2 clients · 100 acq/s · acquire p99 104µs · overlaps 0"
	if out.String() != want {
		t.Errorf("terminal line\n got %q\nwant %q", out.String(), want)
	}
	clock.advance(time.Second)
	r.Tick()
	if n := strings.Count(out.String(), "\r\x1b[K"); n != 2 {
		t.Errorf("%d redraws after two ticks, want 2: %q", n, out.String())
	}
	out.Reset()
	r.Println("lockbench: [2/2] next")
	if out.String() != "\r\x1b[Klockbench: [2/2] next\n" {
		t.Errorf("a line above the progress: %q", out.String())
	}
	out.Reset()
	r.Stop()
	if out.String() != "" {
		t.Errorf("Stop erased a line already erased: %q", out.String())
	}
	clock.advance(time.Second)
	r.Tick()
	out.Reset()
	r.Stop()
	if out.String() != "\r\x1b[K" {
		t.Errorf("Stop left the line on screen: %q", out.String())
	}
}

func TestRendererStartStop(t *testing.T) {
	var out syncBuffer
	r := New(&out, Options{Interval: 20 * time.Millisecond, Tick: 10 * time.Millisecond})
	live := &workloads.Live{}
	r.Cell(Cell{Total: 1, Variant: "none", Clients: 1, Live: live})
	r.Start()
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(out.String(), "acq/s") && time.Now().Before(deadline) {
		live.Shard(0).Acquired(time.Microsecond)
		time.Sleep(time.Millisecond)
	}
	r.Stop()
	if !strings.Contains(out.String(), "[1/1] none, 1 clients") {
		t.Errorf("no progress line from the ticker: %q", out.String())
	}
}

// A terminal's line is cut to one column less than the terminal's width,
// read at every redraw, so that it never wraps.
func TestRendererCutsToWidth(t *testing.T) {
	clock := newClock()
	var out bytes.Buffer
	width := 40
	r := New(&out, Options{Terminal: true, Now: clock.Now, Width: func() int { return width }})
	live := &workloads.Live{}
	r.Cell(Cell{Total: 1, Variant: "lua-release", Clients: 2, Live: live})
	clock.advance(time.Second)
	feed(live, 100, 100*time.Microsecond)
	r.Tick()
	line := strings.TrimPrefix(out.String(), "\r\x1b[K")
	if n := utf8.RuneCountInString(line); n != width-1 || !strings.HasPrefix(line, "lockbench: 0:01 elapsed · [1/1]") {
		t.Errorf("at width %d: %q (%d runes), want its first %d runes", width, line, n, width-1)
	}
	width = 200 // resized: the whole line
	out.Reset()
	clock.advance(time.Second)
	r.Tick()
	if line := strings.TrimPrefix(out.String(), "\r\x1b[K"); !strings.HasSuffix(line, "overlaps 0") {
		t.Errorf("at width %d: %q, want the whole line", width, line)
	}
}
