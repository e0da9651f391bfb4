package metrics_test

import (
	"fmt"
	"time"

	"github.com/lockbench/lockbench/metrics"
)

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
