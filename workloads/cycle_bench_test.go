package workloads_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/calibrate"
	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// cycleClients is how many clients (goroutines) every cycle benchmark
// spreads its acquisitions over.
const cycleClients = 16

// BenchmarkLockCycle is what lockbench itself costs per acquisition: the
// uncontended cycle of lua-release (SET key token NX PX 10000, then the Lua
// compare-and-delete), a key per client, 16 clients, against one local
// redis-server, three ways in one run per client library:
//
//   - bare: the client library's own calls in a loop, no lockbench at all;
//   - variant: lua-release's Acquire and Release in a loop, no workload;
//   - harness: workloads.Run, closed loop, key per client, no hold or think,
//     as a run cell drives it (commands counted, oracle, recorders).
//
// and none/harness, the harness with the none variant (no Redis at all).
// Every one reports acq/s, cpu-ns/acq (this process's user and system CPU
// per acquisition; redis-server is another process) and allocs/acq; b.N is
// the number of acquisitions, so ns/op and allocs/op are per acquisition
// too. The machine is shared: read the ratios within one run
// (harness/bare), not the absolute figures.
func BenchmarkLockCycle(b *testing.B) {
	local := topotest.Local(b)
	for _, lib := range clients.Names {
		conns, err := clients.Connect(b.Context(), local.Access(), clients.Options{Library: lib})
		if err != nil {
			b.Fatalf("connect %s: %v", lib, err)
		}
		conn := conns[0]
		b.Cleanup(conn.Close)
		prefix := "lbbench:cycle:" + lib + ":"
		b.Run(lib+"/bare", func(b *testing.B) { benchBare(b, conn, prefix+"bare:") })
		b.Run(lib+"/variant", func(b *testing.B) { benchVariant(b, conn, prefix+"variant:") })
		b.Run(lib+"/harness", func(b *testing.B) { benchHarness(b, "lua-release", conn, prefix+"harness:") })
		if lib == clients.Names[0] {
			b.Run("none/harness", func(b *testing.B) { benchHarness(b, "none", conn, prefix+"none:") })
		}
	}
}

// BenchmarkOpenLoopCycle is the open loop's cost per acquisition, with the
// none variant and with lua-release on each client library: 20,000
// arrivals/s for 1 s per iteration, 16 clients, a key per client. Its CPU
// includes the schedule's pacing, which sleeps between its wakes (at most
// one every 500 µs, wakeQuantum). allocs/acq counts the process's allocations (the client
// library's and the variant's too) per acquisition.
func BenchmarkOpenLoopCycle(b *testing.B) {
	local := topotest.Local(b)
	for _, lib := range clients.Names {
		conns, err := clients.Connect(b.Context(), local.Access(), clients.Options{Library: lib})
		if err != nil {
			b.Fatalf("connect %s: %v", lib, err)
		}
		conn := conns[0]
		b.Cleanup(conn.Close)
		variantNames := []string{"lua-release"}
		if lib == clients.Names[0] {
			variantNames = append(variantNames, "none")
		}
		for _, v := range variantNames {
			name := lib + "/" + v
			if v == "none" {
				name = "none"
			}
			b.Run(name, func(b *testing.B) {
				spec := workloads.Spec{Clients: cycleClients, KeyPerClient: true, Rate: 20000, Duration: time.Second}
				newLock := cycleLocks(v, conn, "lbbench:open:"+lib+":"+v+":")
				var acquisitions int64
				before := readUsage()
				for b.Loop() {
					out, err := workloads.Run(b.Context(), spec, newLock, oracle.New(cycleClients, 1), nil)
					if err != nil {
						b.Fatal(err)
					}
					checkCycles(b, out)
					acquisitions += out.Measured.Acquisitions
				}
				readUsage().report(b, before, acquisitions)
			})
		}
	}
}

// benchBare runs b.N cycles on the library under conn directly: the bare
// loop that lockbench calibrate runs too.
func benchBare(b *testing.B, conn clients.Client, prefix string) {
	spec := calibrate.BareSpec{Clients: cycleClients, Prefix: prefix, Release: calibrate.BareCompareAndDelete, Ops: int64(b.N)}
	before := readUsage()
	b.ResetTimer()
	out, err := calibrate.BareLoop(b.Context(), conn, spec)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	readUsage().report(b, before, out.Cycles)
}

// benchVariant runs b.N cycles of lua-release's Acquire and Release.
func benchVariant(b *testing.B, conn clients.Client, prefix string) {
	locks := make([]variants.Lock, cycleClients)
	for i := range locks {
		l, err := variants.New("lua-release", variants.Config{Conn: conn, Prefix: prefix})
		if err != nil {
			b.Fatal(err)
		}
		locks[i] = l
	}
	spread(b, func(ctx context.Context, i int, next func() bool) {
		name := workloads.LockName(i)
		for next() {
			lease, err := locks[i].Acquire(ctx, name)
			if err == nil {
				err = lease.Release(ctx)
			}
			if err != nil {
				b.Errorf("cycle: %v", err)
				return
			}
		}
	})
}

// spread runs b.N iterations over cycleClients goroutines, each calling
// next before every iteration, and reports the cycle figures.
func spread(b *testing.B, run func(ctx context.Context, i int, next func() bool)) {
	var left atomic.Int64
	left.Store(int64(b.N))
	next := func() bool { return left.Add(-1) >= 0 }
	var wg sync.WaitGroup
	before := readUsage()
	b.ResetTimer()
	for i := range cycleClients {
		wg.Go(func() { run(b.Context(), i, next) })
	}
	wg.Wait()
	b.StopTimer()
	readUsage().report(b, before, int64(b.N))
}

// benchHarness runs b.N acquisitions of variant through the closed loop.
func benchHarness(b *testing.B, variant string, conn clients.Client, prefix string) {
	spec := workloads.Spec{Clients: cycleClients, KeyPerClient: true, Ops: int64(b.N)}
	newLock := cycleLocks(variant, conn, prefix)
	before := readUsage()
	b.ResetTimer()
	out, err := workloads.Run(b.Context(), spec, newLock, oracle.New(cycleClients, 1), nil)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	checkCycles(b, out)
	readUsage().report(b, before, out.Measured.Acquisitions)
}

// cycleLocks builds the clients' locks as the runner does: variant on conn,
// its commands counted (in a counter per client), the client's hooks wired.
func cycleLocks(variant string, conn clients.Client, prefix string) workloads.NewLock {
	counted := variants.NewCounted(conn)
	return func(env workloads.ClientEnv) (variants.Lock, error) {
		return variants.New(variant, variants.Config{
			Conn: counted.Wrap(conn), Prefix: prefix, Clock: env.Clock, OnAttempt: env.OnAttempt, AtStep: env.AtStep, Note: env.Note,
		})
	}
}

// checkCycles fails the benchmark when a cycle went wrong: every figure
// measured is meant to be of clean cycles.
func checkCycles(b *testing.B, out workloads.Outcome) {
	m := out.Measured
	if m.Errors+m.Timeouts+m.LeaseLost+m.StaleReleases != 0 {
		b.Fatalf("errors %d, timeouts %d, leases lost %d, stale releases %d", m.Errors, m.Timeouts, m.LeaseLost, m.StaleReleases)
	}
}

// usage is what the process has used up to a time.
type usage struct {
	at      time.Time
	cpu     time.Duration // user and system
	mallocs uint64
}

func readUsage() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // cannot fail with RUSAGE_SELF
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return usage{at: time.Now(), cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), mallocs: ms.Mallocs}
}

// report reports acq/s, cpu-ns/acq and allocs/acq from before to u.
func (u usage) report(b *testing.B, before usage, acquisitions int64) {
	if acquisitions <= 0 {
		b.Fatal("no acquisition")
	}
	n := float64(acquisitions)
	b.ReportMetric(n/u.at.Sub(before.at).Seconds(), "acq/s")
	b.ReportMetric(float64(u.cpu-before.cpu)/n, "cpu-ns/acq")
	b.ReportMetric(float64(u.mallocs-before.mallocs)/n, "allocs/acq")
}
