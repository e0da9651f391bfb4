package linearize

import (
	"testing"

	"github.com/lockbench/lockbench/history"
)

// BenchmarkCheck checks contended histories of 100,000 operations (25,000
// cycles of 4 clients on one key, every acquire waiting for the holder
// before it).
func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct {
		name               string
		limit, brokenEvery int
		view               history.View
		want               Verdict
	}{
		{"lock/critical-sections", 1, 0, history.CriticalSections, Linearizable},
		{"lock/leases", 1, 0, history.Leases, Linearizable},
		{"semaphore-2/critical-sections", 2, 0, history.CriticalSections, Linearizable},
		{"semaphore-2/leases", 2, 0, history.Leases, Linearizable},
		{"broken-lock/critical-sections", 1, 100, history.CriticalSections, NotLinearizable},
	} {
		h := contended(4, 25000, bc.limit, bc.brokenEvery)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var res *Result
			for b.Loop() {
				var err error
				res, err = Check(h, Options{View: bc.view})
				if err != nil {
					b.Fatal(err)
				}
			}
			if res.Verdict != bc.want {
				b.Fatalf("verdict %s, want %s", res.Verdict, bc.want)
			}
			b.ReportMetric(float64(len(h.Events)/2)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(res.Segments), "segments")
		})
	}
}
