package topologies

import (
	"testing"
	"time"
)

// BenchmarkStartLocal starts and closes each local topology and reports
// how long StartLocal took until the topology served, as s/start.
func BenchmarkStartLocal(b *testing.B) {
	for _, name := range []string{
		"local:single",
		"local:replicated?replicas=2",
		"local:sentinel?replicas=2&sentinels=3",
		"local:cluster?masters=3&replicas=0",
		"local:cluster?masters=3&replicas=1",
		"local:redlock?nodes=5",
	} {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			starts := 0
			for b.Loop() {
				l := startLocal(b, Spec{Name: name})
				total += l.StartupTime()
				starts++
				if err := l.Close(); err != nil {
					b.Fatalf("Close: %v", err)
				}
			}
			b.ReportMetric(total.Seconds()/float64(starts), "s/start")
		})
	}
}
