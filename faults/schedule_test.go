package faults_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
)

func mustParse(t *testing.T, spec string) faults.Fault {
	t.Helper()
	f, err := faults.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// runFor runs the schedule of specs on the topology called name for d
// and returns its events and the nodes BeforeNode was called with.
func runFor(t *testing.T, name string, d time.Duration, specs ...string) ([]measure.FaultEvent, []string) {
	t.Helper()
	topo := topotest.Start(t, name)
	var fs []faults.Fault
	for _, s := range specs {
		fs = append(fs, mustParse(t, s))
	}
	var (
		mu     sync.Mutex
		before []string
	)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	events := faults.Run(ctx, faults.Schedule{Faults: fs, Ctrl: topo, Start: time.Now(), BeforeNode: func(node string) {
		mu.Lock()
		defer mu.Unlock()
		before = append(before, node)
	}})
	for _, e := range events {
		t.Logf("%.3fs %s %s (%s) took %.3fs %s", e.AtS, e.Action, e.Node, e.Fault, e.DurationS, e.Error)
	}
	return events, before
}

// find returns the one event of action on node.
func find(t *testing.T, events []measure.FaultEvent, action, node string) measure.FaultEvent {
	t.Helper()
	i := slices.IndexFunc(events, func(e measure.FaultEvent) bool { return e.Action == action && e.Node == node })
	if i < 0 || slices.ContainsFunc(events[i+1:], func(e measure.FaultEvent) bool { return e.Action == action && e.Node == node }) {
		t.Fatalf("want one %s event of %s in %+v", action, node, events)
	}
	if events[i].Error != "" {
		t.Fatalf("%s of %s failed: %s", action, node, events[i].Error)
	}
	return events[i]
}

// stampedAt checks that e was stamped within 100 ms of its schedule.
func stampedAt(t *testing.T, e measure.FaultEvent, at time.Duration) {
	t.Helper()
	if late := e.AtS - at.Seconds(); late < 0 || late > 0.1 {
		t.Errorf("%s of %s stamped at %.3fs; want within 100 ms of %v", e.Action, e.Node, e.AtS, at)
	}
}

// A failover through Sentinel (SENTINEL FAILOVER) is stamped when it was
// asked for, with the seconds Promote took (it waits for the old master
// to be demoted); the promotion the watch sees comes before Promote
// returns, timed from the failover, and so does the demotion.
func TestScheduleSentinelFailover(t *testing.T) {
	topotest.Faulted(t)
	events, before := runFor(t, "local:sentinel?replicas=1&sentinels=3", 4*time.Second, "at=200ms failover node=replica-1")
	failover := find(t, events, "failover", "replica-1")
	stampedAt(t, failover, 200*time.Millisecond)
	promoted, demoted := find(t, events, faults.ActionPromoted, "replica-1"), find(t, events, faults.ActionDemoted, "master")
	for _, e := range []measure.FaultEvent{promoted, demoted} {
		if e.Fault != failover.Fault || e.DurationS <= 0 || e.AtS > failover.AtS+failover.DurationS+0.5 {
			t.Errorf("%s %+v; want it timed from the failover %+v, within it", e.Action, e, failover)
		}
	}
	if promoted.AtS > demoted.AtS || !slices.Equal(before, []string{"replica-1"}) {
		t.Errorf("promoted at %.2fs, demoted at %.2fs, BeforeNode %v", promoted.AtS, demoted.AtS, before)
	}
}

// A killed master: Sentinel decides on its own (down-after 1 s) and
// promotes the replica; the promotion is recorded, timed from the kill.
func TestScheduleSentinelKill(t *testing.T) {
	topotest.Faulted(t)
	events, _ := runFor(t, "local:sentinel?replicas=1&sentinels=3", 4*time.Second, "at=200ms kill node=master")
	kill := find(t, events, "kill", "master")
	stampedAt(t, kill, 200*time.Millisecond)
	promoted := find(t, events, faults.ActionPromoted, "replica-1")
	if promoted.Fault != kill.Fault || promoted.DurationS < 1 || promoted.DurationS > 5 {
		t.Errorf("promoted %+v; want it 1-5 s after the kill (down-after 1 s)", promoted)
	}
}

// A cluster master paused for 4 s: the cluster promotes its replica on
// its own (cluster-node-timeout 1 s; about 2-3 s) before the pause ends, and demotes
// the old master once it runs again; both are recorded, timed from the
// pause, whose resume comes on schedule.
func TestScheduleClusterPause(t *testing.T) {
	topotest.Faulted(t)
	events, before := runFor(t, "local:cluster?masters=3&replicas=1", 5500*time.Millisecond, "at=200ms pause node=master-1 for=4s")
	pause, resume := find(t, events, "pause", "master-1"), find(t, events, "resume", "master-1")
	stampedAt(t, pause, 200*time.Millisecond)
	stampedAt(t, resume, 4200*time.Millisecond)
	promoted, demoted := find(t, events, faults.ActionPromoted, "replica-1"), find(t, events, faults.ActionDemoted, "master-1")
	if promoted.Fault != pause.Fault || promoted.DurationS < 1 || promoted.AtS > resume.AtS {
		t.Errorf("promoted %+v; want it timed from the pause, at least the node timeout later, before the resume", promoted)
	}
	if demoted.Fault != pause.Fault || demoted.AtS < resume.AtS {
		t.Errorf("demoted %+v; want it after the resume %.2fs, timed from the pause", demoted, resume.AtS)
	}
	if !slices.Equal(before, []string{"master-1"}) {
		t.Errorf("BeforeNode called with %v; want master-1, before the pause", before)
	}
}

// A fault at 0 that takes a node away has acted when Start returns, so
// that the load begun then never meets the node as it was: a restart's
// kill and a pause at 0 are in place, a kill at 300 ms is not yet. (Run
// in a goroutine beside the load, as before, the first commands reached
// the nodes before the faults did: a Redlock holder's majority then took
// in a node "down from the start".) The restart ends on schedule.
func TestStartPlacesFaultsAtZero(t *testing.T) {
	topotest.Faulted(t)
	topo := topotest.Start(t, "local:redlock?nodes=3")
	pid := map[string]int{}
	for _, n := range topo.Nodes() {
		pid[n.Name] = topo.PID(n.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	running := faults.Start(ctx, faults.Schedule{Ctrl: topo, Start: start, Faults: []faults.Fault{
		mustParse(t, "at=0s restart node=node-1 delay=800ms"),
		mustParse(t, "at=0s pause node=node-2 for=800ms"),
		mustParse(t, "at=300ms kill node=node-3"),
	}})
	// At once, before any goroutine of the schedule could still act.
	state := map[string]byte{}
	for name, p := range pid {
		state[name] = topologies.ProcessState(p)
	}
	if state["node-1"] != 0 || state["node-2"] != 'T' || state["node-3"] == 0 || state["node-3"] == 'T' {
		t.Errorf("when Start returned, the nodes' process states were %q; want node-1 gone, node-2 stopped (T), node-3 running", state)
	}
	events := running.Wait()
	stampedAt(t, find(t, events, "restart", "node-1"), 0)
	stampedAt(t, find(t, events, "pause", "node-2"), 0)
	if restarted := find(t, events, "restarted", "node-1"); restarted.AtS < 0.8 || restarted.AtS > 1.3 {
		t.Errorf("node-1 restarted at %.3fs; want from 800 ms, its delay", restarted.AtS)
	}
	stampedAt(t, find(t, events, "kill", "node-3"), 300*time.Millisecond)
	for _, n := range []string{"node-1", "node-2"} {
		if state := topologies.ProcessState(topo.PID(n)); state == 0 || state == 'T' {
			t.Errorf("after the schedule %s is in state %q; want it running", n, state)
		}
	}
}
