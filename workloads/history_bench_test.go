package workloads_test

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/workloads"
)

// BenchmarkHistoryCost is what recording a cell's history and measuring
// its margins costs: the uncontended lua-release closed loop (a key per
// client) of 64 clients on rueidis against one local redis-server, without
// and with a history of history.DefaultCapacity events and margins, side
// by side in one run; and the same with the none variant (no Redis: the
// harness alone, where the history's share is largest). cell-acq/s is the throughput over the measured
// phase (the history is sorted after it, as a run does); cpu-ns/acq and
// allocs/acq are the process's per acquisition, the sort included. b.N is
// the acquisitions per cell: keep it within the capacity (8 events each),
// e.g. -benchtime 200000x. docs/history.md has a run's figures.
func BenchmarkHistoryCost(b *testing.B) {
	local := topotest.Local(b)
	conns, err := clients.Connect(b.Context(), local.Access(), clients.Options{Library: clients.Names[0]})
	if err != nil {
		b.Fatal(err)
	}
	conn := conns[0]
	b.Cleanup(conn.Close)
	const clientCount = 64
	for _, tc := range []struct {
		name, variant string
		events        int
		ttl           time.Duration
	}{
		{"lua-release/without", "lua-release", 0, 0}, {"lua-release/with", "lua-release", history.DefaultCapacity, 10 * time.Second},
		{"none/without", "none", 0, 0}, {"none/with", "none", history.DefaultCapacity, 10 * time.Second},
	} {
		b.Run(tc.name, func(b *testing.B) {
			spec := workloads.Spec{Clients: clientCount, KeyPerClient: true, Ops: int64(b.N), HistoryEvents: tc.events, LeaseTTL: tc.ttl}
			newLock := cycleLocks(tc.variant, conn, "lbbench:history:"+tc.name+":")
			before := readUsage()
			b.ResetTimer()
			out, err := workloads.Run(b.Context(), spec, newLock, oracle.New(clientCount, 1), nil)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			checkCycles(b, out)
			if tc.events > 0 && (out.History == nil || out.History.Meta.Cut) {
				b.Fatalf("history cut at %d events: lower -benchtime", tc.events)
			}
			readUsage().report(b, before, out.Measured.Acquisitions)
			b.ReportMetric(float64(out.Measured.Acquisitions)/out.Elapsed.Seconds(), "cell-acq/s")
		})
	}
}
