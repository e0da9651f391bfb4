package workloads

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lockbench/lockbench/metrics"
)

// backlogSeconds is how many seconds of arrivals may wait for a free client
// when every client is busy; arrivals beyond it are dropped and counted.
const backlogSeconds = 1

// A Go timer wakes up to about a millisecond late here (the runtime polls
// with a timeout in whole milliseconds when nothing else runs), so the
// scheduler sleeps on one only until timerSlack before an arrival and on
// the OS's high-resolution timer (preciseTimer) for the rest: it sleeps
// between arrivals at any rate, waking at most once every wakeQuantum,
// and its CPU grows with the rate. Arrivals already due when it wakes are
// sent at once (each counts its lateness).
// Before issue 31 it yielded in a loop for the last timerSlack instead,
// a busy core from 1,000 arrivals/s on.
const timerSlack = 1500 * time.Microsecond

// runOpen offers acquisitions on the spec's schedule until ctx ends. Each
// arrival is handed to a free client, or waits in a backlog of up to one
// second of arrivals; its latency counts from when it was meant to start,
// so that a stall delays, and shows in, every arrival it held up
// (coordinated omission is corrected). The schedule's own lateness is
// recorded, and arrivals with no room to wait are dropped and counted.
func (d *driver) runOpen(ctx context.Context) {
	backlog := make(chan time.Time, max(len(d.clients), int(d.spec.peakRate()*backlogSeconds)))
	var wg sync.WaitGroup
	for _, c := range d.clients {
		wg.Go(func() {
			defer c.tally.Flush()
			for intended := range backlog {
				if ctx.Err() != nil {
					continue // drain: the run is over
				}
				goOn, _ := c.cycle(ctx, intended, d.now())
				c.stopWaiting(d.now()) // the arrival is served: it waits no more
				if !goOn && c.crashed.Load() {
					return // a crashed client serves no more
				}
			}
		})
	}
	d.schedule(ctx, backlog)
	close(backlog)
	wg.Wait()
}

// schedule sends the intended start of every arrival to backlog at that
// time, from the start of the warm-up to the end of the measured phase.
func (d *driver) schedule(ctx context.Context, backlog chan<- time.Time) {
	rnd := rand.New(rand.NewPCG(rand.Uint64(), 0))
	start := d.measureAt.Add(-d.spec.Warmup)
	end := d.measureAt.Add(d.spec.Duration)
	pace := newPacer(d.spec.Pacing)
	defer pace.close()
	tally := metrics.NewTally(nil, 0) // the schedule's lateness
	defer tally.Flush()
	for at := start; ; {
		rate := d.spec.rateAt(max(at.Sub(d.measureAt), 0))
		if rate <= 0 {
			at = at.Add(time.Millisecond) // nothing to offer yet: look again soon
		} else if d.spec.Arrivals == "poisson" {
			at = at.Add(time.Duration(rnd.ExpFloat64() / rate * float64(time.Second)))
		} else {
			at = at.Add(time.Duration(float64(time.Second) / rate))
		}
		if !at.Before(end) {
			return
		}
		if rate <= 0 {
			continue
		}
		if !pace.wait(ctx, at) {
			return
		}
		now := time.Now()
		rec := d.recorder(d.stripes, at) // the schedule's own
		tally.To(rec)
		tally.Late(now.Sub(at))
		if !at.Before(d.measureAt) {
			d.offered.Add(1)
		}
		select {
		case backlog <- at:
		default:
			rec.Add(now, metrics.Dropped)
		}
	}
}
