package workloads

import (
	"context"
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

// pacer waits for an open loop's arrivals: on a Go timer until timerSlack
// before an arrival, then on the precise timer, never waking again sooner
// than wakeQuantum after its last wake.
type pacer struct {
	timer   *time.Timer
	precise *preciseTimer
	woke    time.Time     // when the last wait ended
	parked  time.Duration // time blocked on either timer, the wake-up's delay included
	wakes   int           // waits that blocked
}

func newPacer() *pacer {
	return &pacer{timer: time.NewTimer(time.Hour), precise: newPreciseTimer()}
}

func (p *pacer) close() {
	p.timer.Stop()
	p.precise.close()
}

// wait returns at once when at is due, else waits until at or until
// wakeQuantum after its last wake, whichever is later; false when ctx
// ended first.
func (p *pacer) wait(ctx context.Context, at time.Time) bool {
	now := time.Now()
	if !at.After(now) {
		return ctx.Err() == nil
	}
	if next := p.woke.Add(wakeQuantum); next.After(at) {
		at = next
	}
	p.wakes++
	if wait := at.Sub(now) - timerSlack; wait > 0 {
		p.timer.Reset(wait)
		select {
		case <-ctx.Done():
			p.parked += time.Since(now)
			return false
		case <-p.timer.C:
		}
	}
	if wait := time.Until(at); wait > 0 {
		p.precise.sleep(wait)
	}
	p.woke = time.Now()
	p.parked += p.woke.Sub(now)
	return ctx.Err() == nil
}
