package metrics_test

import (
	"fmt"
	"time"

	"github.com/lockbench/lockbench/metrics"
)

// Two holders that both believe they own the lock sell the same ticket.
func ExampleOracle() {
	o := metrics.NewOracle(1, 1) // one resource, one holder at a time

	a := o.Enter(0)
	o.Exit(a) // counter 1

	b := o.Enter(0) // reads 1
	c := o.Enter(0) // reads 1 too: overlap
	o.Exit(b)       // writes 2
	o.Exit(c)       // writes 2 again: one update lost

	r := o.Report()
	fmt.Println("overlaps:", r.Overlaps, "max occupancy:", r.MaxOccupancy)
	fmt.Println("critical sections:", r.CriticalSections, "counter:", r.Counter, "lost updates:", r.LostUpdates)
	// Output:
	// overlaps: 1 max occupancy: 2
	// critical sections: 3 counter: 2 lost updates: 1
}

// A holder paused past its lease writes with an old fencing token after a
// later holder wrote with a newer one: the resource refuses the write.
func ExampleOracle_RejectStaleWrites() {
	o := metrics.NewOracle(1, 1)
	o.RejectStaleWrites()

	paused := o.EnterFenced(0, 33) // token 33, then a long pause: the lease expires
	next := o.EnterFenced(0, 34)   // the next holder, token 34
	fmt.Println("token 34 written:", o.Exit(next))
	fmt.Println("token 33 written:", o.Exit(paused)) // stale: refused

	r := o.Report()
	fmt.Println("rejected:", r.RejectedWrites, "counter:", r.Counter, "lost updates:", r.LostUpdates)
	// Output:
	// token 34 written: true
	// token 33 written: false
	// rejected: 1 counter: 1 lost updates: 0
}

func ExampleMerge() {
	start := time.Now()
	stripes := []*metrics.Recorder{metrics.NewRecorder(start), metrics.NewRecorder(start)}
	for i, rec := range stripes {
		for j := 1; j <= 100*(i+1); j++ {
			rec.Add(start, metrics.Attempt)
			d := time.Duration(j) * 10 * time.Microsecond
			rec.Acquired(start.Add(d), d, d)
		}
	}

	s := metrics.Merge(stripes, []int64{100, 200}) // per-client acquisitions, for fairness
	lat := metrics.Quantiles(s.Acquire)
	fmt.Printf("acquisitions: %d of %d attempts\n", s.Acquisitions, s.Attempts)
	fmt.Printf("p50 %.0fµs p99 %.0fµs max %.0fµs\n", lat.P50, lat.P99, lat.Max)
	fmt.Printf("jain %.2f\n", s.Fairness.Jain)
	// Output:
	// acquisitions: 300 of 300 attempts
	// p50 750µs p99 1970µs max 2000µs
	// jain 0.90
}
