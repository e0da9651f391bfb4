package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
)

const (
	// meterEvery is how often a meter that polls snapshots every data
	// node: often enough that a role change or a death leaves little of a
	// node's work unattributed, rarely enough that its INFO costs the
	// servers well under 1 % of a core.
	meterEvery = 100 * time.Millisecond
	// beforeFaultTimeout bounds the snapshot of a node a fault is about to
	// act on, which the fault waits for.
	beforeFaultTimeout = 50 * time.Millisecond
)

// serverMeter measures what a cell's measured phase costs the data nodes
// of a topology — every node that was there, whatever its role at the end
// — from the servers' own counters. It snapshots every node when the phase
// starts and when it ends, and, when it polls (a cell with faults), every
// meterEvery between and just before a fault acts on a node. Each pair of
// one node's consecutive snapshots is a span, counted with the role the
// node had at both ends: a master's commands are the cell's; a replica's
// only cost CPU (it applies what its master ran, which counted there). A
// span over which the node changed role — it was promoted or demoted
// between the snapshots — has commands that cannot be told apart (those
// it ran as a master, and those it applied as a replica, which count on
// the node that ran them): they count as no master's, and the note says
// how many. A node whose run_id changed restarted, with its counters from
// zero: its span counts from the restart, with the role it has after it.
// A node that stops answering (killed, paused) is counted to its last
// snapshot; one that answers only later, from its first. The note says so.
type serverMeter struct {
	snaps   *snapshots
	openErr error
	poll    bool
	nodes   []*nodeMeter // as snaps.nodes

	start   time.Time     // of the measured phase
	started chan struct{} // closed once the first snapshots are taken
	stop    context.CancelFunc
	polling sync.WaitGroup
	before  sync.WaitGroup // BeforeNode's snapshots
}

// nodeMeter is what one node has cost so far.
type nodeMeter struct {
	mu       sync.Mutex // one snapshot of the node at a time, observed in order
	name     string
	first    time.Time     // its first snapshot
	last     *nodeSnapshot // its latest, nil before the first
	lastErr  error         // why its latest try failed, if it did
	cost     metrics.ServerCost
	commands int64 // all it ran, as master or replica, without housekeeping
	cpu      float64
	notes    []string
}

// openMeter connects to the data nodes (openSnapshots); poll says whether
// it snapshots them every meterEvery. A node it cannot reach is named in
// the cost's note.
func openMeter(ctx context.Context, access topologies.Access, nodes []topologies.Node, library string, poll bool) *serverMeter {
	snaps, err := openSnapshots(ctx, access, nodes, library)
	m := &serverMeter{snaps: snaps, openErr: err, poll: poll, started: make(chan struct{})}
	for _, n := range snaps.nodes {
		m.nodes = append(m.nodes, &nodeMeter{name: n.Name})
	}
	return m
}

// begin takes the first snapshots, beside the caller (a node that does
// not answer must not hold the measured phase up), and starts polling;
// ctx bounds the polling.
func (m *serverMeter) begin(ctx context.Context) {
	m.start = time.Now()
	ctx, m.stop = context.WithCancel(context.WithoutCancel(ctx))
	m.polling.Go(func() {
		m.snapshotAll(ctx, snapshotTimeout)
		close(m.started)
		if !m.poll {
			return
		}
		var wg sync.WaitGroup
		for i := range m.nodes {
			wg.Go(func() {
				ticker := time.NewTicker(meterEvery)
				defer ticker.Stop()
				for {
					select {
					case <-ctx.Done():
						return
					case <-ticker.C:
					}
					m.snapshot(ctx, i, meterEvery)
				}
			})
		}
		wg.Wait()
	})
}

// BeforeNode snapshots the node called name now, for a fault that is
// about to act on it (faults.Schedule.BeforeNode), and returns when it has
// or after beforeFaultTimeout at the latest: the fault must not wait for a
// poll of the node in flight, nor for a slow node.
func (m *serverMeter) BeforeNode(name string) {
	for i, n := range m.nodes {
		if n.name != name {
			continue
		}
		done := make(chan struct{})
		m.before.Go(func() {
			defer close(done)
			m.snapshot(context.Background(), i, beforeFaultTimeout)
		})
		select {
		case <-done:
		case <-time.After(beforeFaultTimeout):
		}
	}
}

// snapshot takes node i's snapshot within timeout and adds the span since
// its last one.
func (m *serverMeter) snapshot(ctx context.Context, i int, timeout time.Duration) {
	n := m.nodes[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	snap, err := m.snaps.takeOne(ctx, i)
	if err != nil {
		n.lastErr = err
		return
	}
	n.lastErr = nil
	n.observe(snap, m.start)
}

// snapshotAll snapshots every node at once, each within timeout, and
// tries a node that failed once more (a connection a failover's CLIENT
// KILL closed is opened again by the next command) while time is left.
func (m *serverMeter) snapshotAll(ctx context.Context, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	var wg sync.WaitGroup
	for i, n := range m.nodes {
		wg.Go(func() {
			m.snapshot(ctx, i, time.Until(deadline))
			n.mu.Lock()
			failed := n.lastErr != nil
			n.mu.Unlock()
			if failed && time.Until(deadline) > 0 && ctx.Err() == nil {
				m.snapshot(ctx, i, time.Until(deadline))
			}
		})
	}
	wg.Wait()
}

// observe adds the span from the node's last snapshot to snap.
func (n *nodeMeter) observe(snap nodeSnapshot, start time.Time) {
	if n.last == nil {
		n.first, n.last = snap.at, &snap
		return
	}
	prev := *n.last
	n.last = &snap
	before, after := prev.ServerSnapshot, snap.ServerSnapshot
	between := fmt.Sprintf("between %.2fs and %.2fs", prev.at.Sub(start).Seconds(), snap.at.Sub(start).Seconds())
	switch {
	case prev.runID != snap.runID && prev.runID != "" && snap.runID != "":
		// Its counters start again from zero: count from the restart.
		before = metrics.ServerSnapshot{Node: after.Node, Role: after.Role}
		n.notes = append(n.notes, fmt.Sprintf("%s restarted %s: counted from its restart", n.name, between))
	case before.Role != after.Role:
		before.Role, after.Role = "changing", "changing" // no master's commands
	}
	span := metrics.Cost([]metrics.ServerSnapshot{before}, []metrics.ServerSnapshot{after})
	n.cost.Commands += span.Commands
	n.cost.Housekeeping += span.Housekeeping
	n.cost.CPUSeconds += span.CPUSeconds
	for name, calls := range span.ByCommand {
		if n.cost.ByCommand == nil {
			n.cost.ByCommand = map[string]int64{}
		}
		n.cost.ByCommand[name] += calls
	}
	for _, node := range span.Nodes {
		n.commands += node.Commands
		n.cpu += node.CPUSeconds
		if before.Role == "changing" && node.Commands > 0 {
			n.notes = append(n.notes, fmt.Sprintf("%s became a %s %s: its %d commands then count as no master's",
				n.name, snap.Role, between, node.Commands))
		}
	}
}

// finish takes the last snapshots, unless ctx has ended (an interrupt
// must not wait on a server), and returns the cost related to the
// acquisitions, nil when no node gave two snapshots, and a note of what
// the figures leave out and why ("" when nothing). It waits at most
// snapshotTimeout (and a second) for the first snapshots.
func (m *serverMeter) finish(ctx context.Context, acquisitions int64) (*record.ServerCost, string) {
	if m.stop == nil {
		return nil, "the measured phase never started"
	}
	select {
	case <-m.started:
	case <-time.After(snapshotTimeout + time.Second):
		m.stop()
		return nil, "no data node answered the first snapshot in time"
	}
	m.stop()
	m.polling.Wait()
	m.before.Wait()
	if ctx.Err() != nil {
		return nil, ""
	}
	m.snapshotAll(ctx, snapshotTimeout)
	cost, note := m.sum(time.Now())
	if cost == nil {
		return nil, note
	}
	return newServerCost(*cost, acquisitions), note
}

// sum adds up the nodes' costs from the start to end, nil when no node
// gave two snapshots, and notes what the figures leave out.
func (m *serverMeter) sum(end time.Time) (*metrics.ServerCost, string) {
	var notes []string
	if m.openErr != nil {
		notes = append(notes, "left out: "+m.openErr.Error())
	}
	cost := metrics.ServerCost{ByCommand: map[string]int64{}}
	counted := 0
	for _, n := range m.nodes {
		n.mu.Lock()
		notes = append(notes, n.coverage(m.start, end)...)
		if n.last != nil && n.last.at.After(n.first) {
			counted++
			cost.Commands += n.cost.Commands
			cost.Housekeeping += n.cost.Housekeeping
			cost.CPUSeconds += n.cost.CPUSeconds
			for name, calls := range n.cost.ByCommand {
				cost.ByCommand[name] += calls
			}
			cost.Nodes = append(cost.Nodes, measure.NodeCost{Node: n.name, Role: n.last.Role, Commands: n.commands, CPUSeconds: n.cpu})
		}
		n.mu.Unlock()
	}
	if counted == 0 {
		notes = append(notes, "no data node answered two snapshots")
		return nil, strings.Join(notes, "; ")
	}
	return &cost, strings.Join(notes, "; ")
}

// coverage says what the node's figures leave out, from start to end:
// the time before its first snapshot and after its last, when it did not
// answer (or its last try failed, however recent its last snapshot), and
// its notes. Called with n.mu held.
func (n *nodeMeter) coverage(start, end time.Time) []string {
	if n.last == nil {
		return []string{fmt.Sprintf("no figures from %s: %v", n.name, n.lastErr)}
	}
	notes := n.notes
	if late := n.first.Sub(start); late > 2*meterEvery {
		notes = append(notes, fmt.Sprintf("%s counted from %.2fs: it did not answer before", n.name, late.Seconds()))
	}
	if early := end.Sub(n.last.at); early > 2*meterEvery || n.lastErr != nil {
		reason := "it did not answer after"
		if n.lastErr != nil {
			reason += ": " + shortError(n.lastErr)
		}
		notes = append(notes, fmt.Sprintf("%s counted to %.2fs: %s", n.name, n.last.at.Sub(start).Seconds(), reason))
	}
	return notes
}

// shortError is err's innermost message, without the chain of contexts.
func shortError(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// close disconnects from the nodes.
func (m *serverMeter) close() {
	if m.stop != nil {
		m.stop()
		m.polling.Wait()
	}
	m.before.Wait()
	m.snaps.close()
}
