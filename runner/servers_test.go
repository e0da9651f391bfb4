package runner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/workloads"
)

// --servers redis,valkey with two variants runs four cells, the two of
// each server together, each naming its server and version; the record
// names every node's; and on Valkey as on Redis the server meter counts
// the commands the clients sent, by name, within 1 % (or one in flight
// per client), uncontended (a key per client).
//
// The two sides' counts start a few milliseconds apart: the clients'
// counter is read when the measured phase begins, the server's INFO
// answers on a goroutine of the meter after that. Cells of 2 s keep that
// gap under 1 %: in 500 ms cells a CI run had the server count 24 fewer
// of 2,349 (1.02 %), the gap about 5 ms at that rate. A think time of
// 1 ms keeps the longer cells from taking the machine's every cycle.
func TestServersGiveEachCellItsServer(t *testing.T) {
	topotest.NeedServer(t, topologies.ServerValkey)
	t.Parallel()
	rec := runPlan(t, plan.Plan{
		Variants: []string{"set-nx-ex", "lua-release"}, Clients: []int{4},
		Servers:  []string{topologies.ServerRedis, topologies.ServerValkey},
		Workload: workloads.Spec{KeyPerClient: true, Think: dist(t, "1ms"), Duration: 2 * time.Second},
	})
	want := []string{"set-nx-ex on redis", "lua-release on redis", "set-nx-ex on valkey", "lua-release on valkey"}
	for i, c := range rec.Cells {
		product, _, _ := strings.Cut(c.Product, " ")
		if got := c.Variant + " on " + product; got != want[i] || !strings.Contains(c.Product, ".") {
			t.Errorf("cell %d: %s (%q); want %s and its version", i, got, c.Product, want[i])
		}
		checkMeter(t, c)
	}
	products := map[string]int{}
	for _, n := range rec.Topology.Nodes {
		products[strings.Fields(n.Product + " ?")[0]]++
	}
	if products["redis"] != 1 || products["valkey"] != 1 || len(rec.Topology.Nodes) != 2 {
		t.Errorf("nodes %+v; want local's master once per server, each naming its product", rec.Topology.Nodes)
	}
	if v := rec.Topology.ServerVersion; !strings.HasPrefix(v, "redis 7.") || !strings.Contains(v, ", valkey 8.") {
		t.Errorf("server version %q; want redis 7.x, valkey 8.x", v)
	}
	if got := record.Groups(rec); len(got) != 4 {
		t.Errorf("%d groups of repetitions; want 4, one per cell: the server keeps them apart", len(got))
	}
}

// checkMeter checks that the server meter counted, by command name, the
// commands c's clients sent, within 1 % or one command per client.
func checkMeter(t *testing.T, c record.Cell) {
	t.Helper()
	if c.Server == nil {
		t.Errorf("%s on %s: no server cost (%s)", c.Variant, c.Product, c.ServerNote)
		return
	}
	by := c.Server.ByCommand
	sent := by["set"] + by["evalsha"] + by["eval"] // lua-release's script runs the GET and DEL
	if c.Variant == "set-nx-ex" {
		sent += by["del"]
	}
	// Each client has at most one command on the wire when the cell ends:
	// sent by its count, perhaps not yet by the server's. On a loaded
	// machine a cell can be that short (CI-like run, 5 December: a 500 ms
	// cell, 95 sent, 91 counted, 4 clients).
	tolerance := max(0.01*float64(c.Commands), float64(c.Clients))
	if diff := float64(sent - c.Commands); c.Commands == 0 || diff < -tolerance || diff > tolerance {
		t.Errorf("%s on %s: the server counted %d commands the clients sent (%v), the clients %d; want within 1 %% or one per client",
			c.Variant, c.Product, sent, by, c.Commands)
	}
	if c.Server.CPUMicrosPerAcquisition <= 0 {
		t.Errorf("%s on %s: server CPU %+v", c.Variant, c.Product, c.Server)
	}
	t.Logf("%s on %s: %d acquisitions, clients sent %d, server counted %d (%v), %.1f µs server CPU per acquisition",
		c.Variant, c.Product, c.Acquisitions, c.Commands, sent, by, c.Server.CPUMicrosPerAcquisition)
}
