package workloads

import (
	"context"
	"testing"
	"time"
)

// The open loop's scheduler sleeps between arrivals: driven through a
// 20,000/s schedule, the pacer spends most of the run blocked on a timer
// and wakes at most about once per wakeQuantum. Both hold however loaded
// the machine is (a wake delayed by a busy run queue is still time
// blocked, and a late wake finds more arrivals due at once), where a
// CPU-time bound does not (TestOpenLoopSleepsBetweenArrivals measured 0.7
// core under the full suite's load, 0.2 idle; BenchmarkOpenLoopCPU has
// the CPU figures). A scheduler that spins or yields until each arrival
// is never blocked: the share is near 0 before issue 31.
func TestPacerSleepsBetweenArrivals(t *testing.T) {
	const rate, run = 20000, 400 * time.Millisecond
	p := newPacer(PacingSleep)
	defer p.close()
	start := time.Now()
	for at := start; at.Before(start.Add(run)); at = at.Add(time.Second / rate) {
		if !p.wait(context.Background(), at) {
			t.Fatal("wait ended without its context ending")
		}
	}
	elapsed := time.Since(start)
	share := float64(p.parked) / float64(elapsed)
	maxWakes := int(elapsed/wakeQuantum) + 2
	t.Logf("%d arrivals over %v: %d wakes (at most %d), blocked %.0f %% of the time",
		int(run.Seconds()*rate), elapsed.Round(time.Millisecond), p.wakes, maxWakes, 100*share)
	if share < 0.5 {
		t.Errorf("the pacer was blocked %.0f %% of a %v schedule at %d/s, want at least 50 %%: it spins between arrivals", 100*share, elapsed, rate)
	}
	if p.wakes > maxWakes {
		t.Errorf("the pacer woke %d times in %v, want at most %d (one per %v)", p.wakes, elapsed, maxWakes, wakeQuantum)
	}
}

// --pacing spin trades the sleeping pacer's CPU for each arrival on time:
// between arrivals closer than timerSlack (50 µs apart at 20,000/s) it
// never blocks, where the sleeping pacer blocks on a timer and lets the
// arrivals due meanwhile go together.
func TestPacerSpinsBetweenCloseArrivals(t *testing.T) {
	const rate, run = 20000, 100 * time.Millisecond
	for _, tc := range []struct {
		pacing string
		blocks bool
	}{{PacingSpin, false}, {PacingSleep, true}} {
		p := newPacer(tc.pacing)
		start := time.Now()
		for at := start.Add(time.Second / rate); at.Before(start.Add(run)); at = at.Add(time.Second / rate) {
			if !p.wait(context.Background(), at) {
				t.Fatal("wait ended without its context ending")
			}
			if time.Now().Before(at) {
				t.Fatalf("%s: wait returned before its arrival", tc.pacing)
			}
		}
		p.close()
		t.Logf("%s: %d waits blocked over %v", tc.pacing, p.wakes, run)
		if (p.wakes > 0) != tc.blocks {
			t.Errorf("%s: %d waits blocked at %d/s; want blocking %v", tc.pacing, p.wakes, rate, tc.blocks)
		}
	}
}
