package runner

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// snap is a node's snapshot with SET calls, CPU seconds and a run id, at
// start+atMS.
func snap(start time.Time, node, role, runID string, atMS int, sets, infos int64, cpu float64) nodeSnapshot {
	return nodeSnapshot{
		ServerSnapshot: metrics.ServerSnapshot{Node: node, Role: role, CPU: metrics.CPU{UserS: cpu},
			Commands: map[string]metrics.CommandStat{"set": {Calls: sets}, "info": {Calls: infos}}},
		runID: runID, at: start.Add(time.Duration(atMS) * time.Millisecond),
	}
}

// A failover as the meter sees it: the old master's spans count while it
// is a master at both ends, the promoted replica's once it is; the spans
// over which either changed role count as no master's (they would count
// a replicated command twice, or one it ran as a master not at all) and
// are noted; a restart (new run_id) counts from zero; every span's CPU
// counts; a node that stopped answering is counted to its last snapshot.
func TestMeterSpans(t *testing.T) {
	start := time.Now()
	m := &serverMeter{start: start, nodes: []*nodeMeter{{name: "master"}, {name: "replica-1"}, {name: "dead"}}}
	old, promoted, dead := m.nodes[0], m.nodes[1], m.nodes[2]
	for _, s := range []nodeSnapshot{
		snap(start, "master", "master", "a", 0, 1000, 5, 1.0),
		snap(start, "master", "master", "a", 100, 1100, 6, 1.1),  // +100 as master
		snap(start, "master", "replica", "a", 200, 1150, 7, 1.2), // demoted: +50 unattributed
		snap(start, "master", "replica", "a", 300, 1200, 8, 1.3), // +50 applied as a replica
		snap(start, "master", "master", "b", 400, 30, 1, 0.05),   // restarted, a master again: +30
	} {
		old.observe(s, start)
	}
	for _, s := range []nodeSnapshot{
		snap(start, "replica-1", "replica", "c", 0, 500, 5, 0.5),
		snap(start, "replica-1", "replica", "c", 100, 600, 6, 0.6), // +100 applied
		snap(start, "replica-1", "master", "c", 200, 620, 7, 0.7),  // promoted: +20 unattributed
		snap(start, "replica-1", "master", "c", 400, 820, 9, 0.9),  // +200 as master
	} {
		promoted.observe(s, start)
	}
	dead.observe(snap(start, "dead", "master", "d", 0, 10, 1, 0.1), start)
	dead.observe(snap(start, "dead", "master", "d", 100, 40, 2, 0.2), start) // +30, then nothing
	dead.lastErr = context.DeadlineExceeded

	cost, note := m.sum(start.Add(400 * time.Millisecond))
	if cost == nil {
		t.Fatalf("no cost; note %q", note)
	}
	if want := int64(100 + 30 + 200 + 30); cost.Commands != want || cost.ByCommand["set"] != want {
		t.Errorf("commands %d, sets %d; want %d: the spans a node was a master at both ends", cost.Commands, cost.ByCommand["set"], want)
	}
	if want := 1 + 1 + 2 + 1; cost.Housekeeping != int64(want) {
		t.Errorf("housekeeping %d; want %d (the masters' info calls)", cost.Housekeeping, want)
	}
	if want := (0.3 + 0.05) + 0.4 + 0.1; math.Abs(cost.CPUSeconds-want) > 1e-9 {
		t.Errorf("CPU %v s; want %v: every span of every node", cost.CPUSeconds, want)
	}
	byNode := map[string]measure.NodeCost{}
	for _, n := range cost.Nodes {
		byNode[n.Node] = n
	}
	if n := byNode["master"]; n.Commands != 100+50+50+30 || n.Role != "master" {
		t.Errorf("old master %+v; want all 230 commands it ran, its role at the end", n)
	}
	if n := byNode["replica-1"]; n.Commands != 100+20+200 || n.Role != "master" {
		t.Errorf("promoted replica %+v; want 320 commands, master", n)
	}
	for _, want := range []string{
		"master became a replica between 0.10s and 0.20s: its 50 commands then count as no master's",
		"master restarted between 0.30s and 0.40s: counted from its restart",
		"replica-1 became a master between 0.10s and 0.20s: its 20 commands then count as no master's",
		"dead counted to 0.10s: it did not answer after: context deadline exceeded",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
}

// A node that never answered leaves no cost, and the note says so.
func TestMeterNoFigures(t *testing.T) {
	start := time.Now()
	m := &serverMeter{start: start, nodes: []*nodeMeter{{name: "master", lastErr: context.DeadlineExceeded}}}
	cost, note := m.sum(start.Add(time.Second))
	if cost != nil || !strings.Contains(note, "no figures from master") || !strings.Contains(note, "no data node answered two snapshots") {
		t.Errorf("cost %+v, note %q; want none, and why", cost, note)
	}
}

// A node restarted between two snapshots, its counters back at zero, is
// counted from its restart (a new run_id), and the cycles before count
// up to the snapshot taken just before the restart (BeforeNode): every
// SET the client sent is counted, once. The node is down for 300 ms, so
// polls fail on it: a poll that finds it refusing connections opens
// go-redis' dial breaker (every command refused for up to a second), and
// the meter must still see the node as soon as it answers again — under
// load, .ci/run once counted 20 of the 80 SETs with no note at all.
func TestMeterRestartedNode(t *testing.T) {
	topotest.Faulted(t)
	topo := topotest.Local(t)
	ctrl, err := topologies.ControllerOf(topo)
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			b := newCostBench(t, topo, lib)
			ctx := context.Background()
			m := openMeter(ctx, topo.Access(), topo.Nodes(), lib, true)
			defer m.close()
			m.begin(ctx)
			<-m.started
			b.cycles(t, 20, 1)
			m.BeforeNode("master")
			if err := ctrl.Restart(ctx, "master", 300*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			// The client's connections died with the server: the first
			// command on each may fail (rueidis spreads keyed commands over
			// several). GETs reopen them, and count no SET.
			for range 20 {
				_, _ = b.counted.Do(ctx, variants.Cmd("GET", "lbtest:k0"))
			}
			b.cycles(t, 60, 1) // more than before: counters that did not go back
			cost, note := m.finish(ctx, 80)
			if cost == nil {
				t.Fatalf("no cost; note %q", note)
			}
			if sets := cost.ByCommand["set"]; sets != 80 {
				t.Errorf("%d SETs counted (%v); want the 80 sent, 20 before the restart and 60 after", sets, cost.ByCommand)
			}
			if !strings.Contains(note, "master restarted between") {
				t.Errorf("note %q; want the restart named", note)
			}
			t.Logf("%s: %v; note %q", lib, cost.ByCommand, note)
		})
	}
}
