package workloads_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// freeLock always acquires at once: the harness alone, no lock and no Redis.
type freeLock struct{ onAttempt func(error) }

type freeLease struct{}

func (freeLease) Release(context.Context) error { return nil }
func (freeLease) Token() uint64                 { return 0 }
func (freeLease) Lost() <-chan struct{}         { return nil }

func (l freeLock) Acquire(context.Context, string) (variants.Lease, error) {
	l.onAttempt(nil)
	return freeLease{}, nil
}

func freeLocks(env workloads.ClientEnv) (variants.Lock, error) {
	return freeLock{onAttempt: env.OnAttempt}, nil
}

// BenchmarkOpenLoopDispatch is the harness's cost per open-loop arrival:
// the schedule is far ahead of what it can offer, so it never waits and
// every arrival costs scheduling, handing over and recording.
func BenchmarkOpenLoopDispatch(b *testing.B) {
	spec := workloads.Spec{Clients: 8, Keys: 64, Rate: 1e7, Duration: 200 * time.Millisecond}
	var arrivals, acquisitions int64
	var took time.Duration
	before := readUsage()
	for b.Loop() {
		out, err := workloads.Run(context.Background(), spec, freeLocks, oracle.New(64, 1), nil)
		if err != nil {
			b.Fatal(err)
		}
		arrivals += out.Measured.Acquisitions + out.Measured.Dropped
		acquisitions += out.Measured.Acquisitions
		took += out.Elapsed
	}
	readUsage().report(b, before, acquisitions)
	b.ReportMetric(float64(arrivals)/took.Seconds(), "arrivals/s")
	b.ReportMetric(float64(took.Nanoseconds())/float64(arrivals), "ns/arrival")
}

// BenchmarkOpenLoopPacing offers 20,000 acquisitions/s for 10 s without a
// lock and reports how close the achieved rate comes and how late the
// schedule started arrivals (targets: within 1 %, p99 under 1 ms).
func BenchmarkOpenLoopPacing(b *testing.B) {
	spec := workloads.Spec{Clients: 50, Keys: 64, Rate: 20000, Duration: 10 * time.Second}
	for b.Loop() {
		out, err := workloads.Run(context.Background(), spec, freeLocks, oracle.New(64, 1), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(out.Measured.Acquisitions)/out.Elapsed.Seconds(), "achieved/s")
		b.ReportMetric(float64(out.Measured.Lateness.ValueAtQuantile(99)), "late-p99-µs")
		b.ReportMetric(float64(out.Measured.Dropped), "dropped")
	}
}

// BenchmarkTenThousandClients runs 10,000 clients in one process for 2 s
// (1 ms holds, 10 ms thinks, 1,000 lock names) and reports the process's
// peak resident memory (target: under 300 MB).
func BenchmarkTenThousandClients(b *testing.B) {
	hold, _ := workloads.ParseDistribution("1ms")
	think, _ := workloads.ParseDistribution("10ms")
	spec := workloads.Spec{Clients: 10000, Keys: 1000, Hold: hold, Think: think, Duration: 2 * time.Second}
	for b.Loop() {
		out, err := workloads.Run(context.Background(), spec, freeLocks, oracle.New(1000, 1), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(out.Measured.Acquisitions)/out.Elapsed.Seconds(), "acq/s")
	}
	runtime.GC()
	peak := peakRSS(b)
	b.ReportMetric(peak, "peak-RSS-MB")
	b.Logf("10,000 clients: peak resident memory %.0f MB", peak)
}

// peakRSS is the process's peak resident set in MB, from /proc.
func peakRSS(b *testing.B) float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc: peak memory unknown")
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkClosedLoopLive is the harness's cost per closed-loop
// acquisition without a lock, with and without a Live fed: what the live
// progress and metrics add to the hot path.
func BenchmarkClosedLoopLive(b *testing.B) {
	for _, fed := range []bool{false, true} {
		name := "without-live"
		if fed {
			name = "with-live"
		}
		b.Run(name, func(b *testing.B) {
			spec := workloads.Spec{Clients: 8, Keys: 64, Duration: 200 * time.Millisecond}
			var acquisitions int64
			var took time.Duration
			before := readUsage()
			for b.Loop() {
				if fed {
					spec.Live = &workloads.Live{}
				}
				out, err := workloads.Run(context.Background(), spec, freeLocks, oracle.New(64, 1), nil)
				if err != nil {
					b.Fatal(err)
				}
				acquisitions += out.Measured.Acquisitions
				took += out.Elapsed
			}
			readUsage().report(b, before, acquisitions)
			b.ReportMetric(float64(took.Nanoseconds())/float64(acquisitions), "ns/acq")
		})
	}
}
