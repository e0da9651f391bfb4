package faults

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/topologies"
)

// The actions of the events Run records beside the faults' own.
const (
	ActionPromoted = "promoted"
	ActionDemoted  = "demoted"
)

// WatchEvery is how often Run asks the data nodes their roles while node
// faults run on a topology that fails over by itself.
const WatchEvery = 100 * time.Millisecond

// Schedule is what Run injects and through what.
type Schedule struct {
	// Faults are the faults; client faults among them are left to the
	// workload.
	Faults []Fault
	// Ctrl acts on the nodes (nil without node faults). When it is also a
	// topologies.RoleWatcher, Run watches the data nodes' roles.
	Ctrl topologies.Controller
	// Net acts on the network (nil without network faults).
	Net *Network
	// Start is when the measured phase started: each fault acts at
	// Start + At.
	Start time.Time
	// BeforeNode, when set, is called with the node's name just before a
	// pause, kill, restart or failover acts on it, and its return awaited
	// (the runner reads the node's counters there, while it still answers).
	BeforeNode func(node string)
	// Promoted, when set, is called with each promotion the watch of the
	// roles sees: the node, when it was seen, and when the fault that
	// caused it began (Start when none did).
	Promoted func(node string, seen, cause time.Time)
	// Arrived, when set, is called each time the watch of the roles sees
	// clients' commands first reach a node (topologies.RoleChange's
	// Arrived): the node and when it was seen.
	Arrived func(node string, at time.Time)
}

// Running is a schedule under way (Start); Wait returns what it did.
type Running struct {
	wg     sync.WaitGroup
	mu     sync.Mutex
	events []measure.FaultEvent
}

// Run starts the schedule of s and waits for its end: Start(ctx, s).Wait().
func Run(ctx context.Context, s Schedule) []measure.FaultEvent { return Start(ctx, s).Wait() }

// Wait waits until the schedule has ended (its context ended, and every
// paused node and cut link was restored) and returns what it did, in time
// order.
func (r *Running) Wait() []measure.FaultEvent {
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	slices.SortStableFunc(r.events, func(a, b measure.FaultEvent) int { return cmp.Compare(a.AtS, b.AtS) })
	return r.events
}

// placesAtOnce reports whether a fault at 0 of kind k is in place before
// Start returns: those that take a node, a link or a clock away. A
// failover at 0 is asked for then, not awaited (it takes seconds).
func placesAtOnce(k Kind) bool {
	switch k {
	case Pause, Kill, Restart, Clock, Latency, Partition, Reset:
		return true
	}
	return false
}

// Start injects the node faults of s through s.Ctrl and the network faults
// through s.Net, each at s.Start + At, until ctx ends (client faults are
// the workload's). A fault at 0 that takes a node, a link or a clock away
// (pause, kill, the kill of a restart, latency, partition, reset, clock) has
// acted when Start returns, so that a load begun then never meets the
// node as it was (a Redlock holder's majority cannot include a node
// killed at 0). A paused node, a slowed or cut network, is restored when
// its pause ends or, at the latest, when ctx ends, so no node is left
// stopped; a moved clock stays moved. With node or network faults on a
// topology that fails over by itself, it also records each role change a
// watch of the data nodes sees (every WatchEvery, until ctx ends) as a
// promoted or demoted event, timed from the fault before it.
func Start(ctx context.Context, s Schedule) *Running {
	ctrl, net, start := s.Ctrl, s.Net, s.Start
	r := &Running{}
	// placing counts the faults at 0 whose first action Start awaits.
	var placing sync.WaitGroup
	// begin records f's action as begun now and returns its index; end
	// adds the action's error, and for a failover its duration, once it
	// has returned. A role change seen meanwhile finds its cause begun.
	begin := func(f Fault, action string) int {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, measure.FaultEvent{AtS: time.Since(start).Seconds(), Fault: f.String(), Action: action, Node: f.Node})
		return len(r.events) - 1
	}
	end := func(i int, err error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.events[i].Error = err.Error()
		}
		if r.events[i].Action == "failover" {
			r.events[i].DurationS = time.Since(start).Seconds() - r.events[i].AtS
		}
	}
	record := func(f Fault, action string, act func() error) { end(begin(f, action), act()) }
	before := func(f Fault) {
		if s.BeforeNode != nil {
			s.BeforeNode(f.Node)
		}
	}
	watch := false
	for _, f := range s.Faults {
		if !f.Kind.NamesNode() {
			continue // client faults run inside the workload
		}
		watch = true
		placed := func() {}
		if f.At == 0 && placesAtOnce(f.Kind) {
			placing.Add(1)
			placed = sync.OnceFunc(placing.Done)
		}
		r.wg.Go(func() {
			defer placed()
			if !sleepUntil(ctx, start.Add(f.At)) {
				return
			}
			switch f.Kind {
			case Pause:
				if tp, ok := ctrl.(topologies.TimedPauser); ok {
					// A server lockbench did not start resumes by itself.
					record(f, "pause", func() error { return tp.PauseFor(context.WithoutCancel(ctx), f.Node, f.For) })
					placed()
					sleepUntil(ctx, start.Add(f.At+f.For))
					begin(f, "resume")
					return
				}
				before(f)
				record(f, "pause", func() error { return ctrl.Pause(f.Node) })
				placed()
				until := start.Add(f.At + f.For)
				if f.For == 0 {
					until = time.Time{} // to the end of the run
				}
				sleepUntil(ctx, until)
				record(f, "resume", func() error { return ctrl.Resume(f.Node) })
			case Kill:
				before(f)
				record(f, "kill", func() error { return ctrl.Kill(f.Node) })
			case Restart:
				before(f)
				i := begin(f, "restart")
				// The kill first, so that a restart at 0 is down when
				// Start returns; Restart then only waits and starts it.
				err := ctrl.Kill(f.Node)
				killed := time.Now()
				end(i, err)
				placed()
				if err == nil {
					err = ctrl.Restart(context.WithoutCancel(ctx), f.Node, f.Delay-time.Since(killed))
				}
				end(begin(f, "restarted"), err)
			case Failover:
				before(f)
				record(f, "failover", func() error { return ctrl.Promote(context.WithoutCancel(ctx), f.Node) })
			case Clock:
				// The clock stays moved: the next cell gets a fresh topology.
				record(f, "clock "+measure.SignedDuration(f.Jump), func() error { return ctrl.ClockJump(context.WithoutCancel(ctx), f.Node, f.Jump) })
			case ScriptFlush:
				record(f, "script-flush", func() error { return ctrl.FlushScripts(context.WithoutCancel(ctx), f.Node) })
			case Latency, Partition, Reset:
				act := net.Latency
				switch f.Kind {
				case Partition:
					act = net.Partition
				case Reset:
					act = net.Reset
				}
				record(f, string(f.Kind), func() error { return act(f) })
				placed()
				until := start.Add(f.At + f.For)
				if f.For == 0 {
					until = time.Time{}
				}
				sleepUntil(ctx, until)
				record(f, "heal", func() error { return net.Heal(f) })
			}
		})
	}
	if w, ok := ctrl.(topologies.RoleWatcher); ok && watch {
		r.wg.Go(func() {
			w.WatchRoles(ctx, WatchEvery, func(c topologies.RoleChange) {
				if c.Arrived {
					if s.Arrived != nil {
						s.Arrived(c.Node, c.At)
					}
					return
				}
				r.mu.Lock()
				e := roleEvent(c, start, r.events)
				r.events = append(r.events, e)
				r.mu.Unlock()
				if e.Action == ActionPromoted && s.Promoted != nil {
					cause := start
					if e.Fault != "" {
						cause = c.At.Add(-time.Duration(e.DurationS * float64(time.Second)))
					}
					s.Promoted(c.Node, c.At, cause)
				}
			})
		})
	}
	placing.Wait()
	return r
}

// causes are the actions after which a node may change roles.
var causes = map[string]bool{"pause": true, "kill": true, "restart": true, "failover": true, "partition": true, "reset": true}

// roleEvent is the event of role change c, seen after the events so far:
// timed from the last of them that may have caused it (the latest to
// begin before c was seen).
func roleEvent(c topologies.RoleChange, start time.Time, so []measure.FaultEvent) measure.FaultEvent {
	at := c.At.Sub(start).Seconds()
	e := measure.FaultEvent{AtS: at, Action: ActionDemoted, Node: c.Node}
	if c.To == topologies.RoleMaster {
		e.Action = ActionPromoted
	}
	cause := -1
	for i, prior := range so {
		if causes[prior.Action] && prior.AtS <= at && (cause < 0 || prior.AtS >= so[cause].AtS) {
			cause = i
		}
	}
	if cause >= 0 {
		e.Fault, e.DurationS = so[cause].Fault, at-so[cause].AtS
	}
	return e
}

// sleepUntil waits until t (forever when t is zero) or ctx's end; false
// when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	if t.IsZero() {
		<-ctx.Done()
		return false
	}
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
