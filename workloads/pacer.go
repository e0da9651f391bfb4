package workloads

import (
	"context"
	"runtime"
	"time"
)

// wakeQuantum is the least time between two wakes of the open loop's
// scheduler: above 2,000 arrivals/s, the arrivals due since its last wake
// are sent together, each as late as the wake (and counted so in late
// p99). A wake costs 40-90 µs of CPU on the 2-core virtual machine
// docs/measuring.md was measured on, so waking for every arrival at tens
// of thousands a second would cost the core that spinning did: at 20,000/s
// this keeps the harness near 0.2 core.
const wakeQuantum = 500 * time.Microsecond

// The open loop's pacings (Spec.Pacing, --pacing).
const (
	// PacingSleep sleeps between arrivals, waking at most once every
	// wakeQuantum: its CPU grows with the rate (0.14-0.26 core at 20,000/s
	// here), arrivals are sent up to wakeQuantum late (late p99 0.51 ms at
	// 20,000/s on the idle 2-core VM, 1.3-3.7 ms loaded).
	PacingSleep = "sleep"
	// PacingSpin sleeps only until timerSlack before an arrival and yields
	// in a loop for the rest, as the open loop did before issue 31: each
	// arrival on time (late p99 6-12 µs at 20,000/s on the idle VM),
	// at the cost of a busy core from about 1,000 arrivals/s on — a core
	// the server under test does not get on a small machine.
	PacingSpin = "spin"
)

// pacer waits for an open loop's arrivals: on a Go timer until timerSlack
// before an arrival, then on the precise timer, never waking again sooner
// than wakeQuantum after its last wake; or, spinning, yields in a loop for
// the last timerSlack.
type pacer struct {
	spin    bool
	timer   *time.Timer
	precise *preciseTimer
	woke    time.Time     // when the last wait ended
	parked  time.Duration // time blocked on either timer, the wake-up's delay included
	wakes   int           // waits that blocked
}

func newPacer(pacing string) *pacer {
	return &pacer{spin: pacing == PacingSpin, timer: time.NewTimer(time.Hour), precise: newPreciseTimer()}
}

func (p *pacer) close() {
	p.timer.Stop()
	p.precise.close()
}

// wait returns at once when at is due, else waits until at (sleeping:
// or until wakeQuantum after its last wake, whichever is later); false
// when ctx ended first.
func (p *pacer) wait(ctx context.Context, at time.Time) bool {
	now := time.Now()
	if !at.After(now) {
		return ctx.Err() == nil
	}
	if next := p.woke.Add(wakeQuantum); next.After(at) && !p.spin {
		at = next
	}
	blocked := false
	if wait := at.Sub(now) - timerSlack; wait > 0 {
		blocked = true
		p.timer.Reset(wait)
		select {
		case <-ctx.Done():
			p.parked += time.Since(now)
			return false
		case <-p.timer.C:
		}
	}
	if p.spin {
		if blocked {
			p.wakes++
			p.parked += time.Since(now)
		}
		for time.Now().Before(at) && ctx.Err() == nil {
			runtime.Gosched()
		}
		return ctx.Err() == nil
	}
	if wait := time.Until(at); wait > 0 {
		blocked = true
		p.precise.sleep(wait)
	}
	p.woke = time.Now()
	if blocked {
		p.wakes++
		p.parked += p.woke.Sub(now)
	}
	return ctx.Err() == nil
}
