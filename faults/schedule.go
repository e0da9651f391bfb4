package faults

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/lockbench/lockbench/topologies"
)

// Event is one thing the schedule did to a node.
type Event struct {
	// AtS is when it happened, in seconds from the start of the measured
	// phase, as the per-second series counts.
	AtS float64 `json:"at_s"`
	// Fault is the fault it belongs to, in Parse's form.
	Fault string `json:"fault"`
	// Action is pause, resume, kill, restart, restarted, failover, latency,
	// partition, heal, or clock with its jump (clock +30s, clock -10s).
	Action string `json:"action"`
	Node   string `json:"node"`
	// Error is why the action failed, if it did.
	Error string `json:"error,omitempty"`
}

// Run injects the node faults of faults through ctrl and the network
// faults through net, each at start + At, until ctx ends, and
// returns what it did (client faults are the workload's). A paused node, a
// slowed or cut network, is restored when its pause ends or, at
// the latest, when ctx ends, so no node is left stopped; a moved clock
// stays moved.
func Run(ctx context.Context, faults []Fault, ctrl topologies.Controller, net *Network, start time.Time) []Event {
	var (
		mu     sync.Mutex
		events []Event
		wg     sync.WaitGroup
	)
	record := func(f Fault, action string, err error) {
		e := Event{AtS: time.Since(start).Seconds(), Fault: f.String(), Action: action, Node: f.Node}
		if err != nil {
			e.Error = err.Error()
		}
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	for _, f := range faults {
		if !f.Kind.NamesNode() {
			continue // client faults run inside the workload
		}
		wg.Go(func() {
			if !sleepUntil(ctx, start.Add(f.At)) {
				return
			}
			switch f.Kind {
			case Pause:
				if tp, ok := ctrl.(topologies.TimedPauser); ok {
					// A server lockbench did not start resumes by itself.
					record(f, "pause", tp.PauseFor(context.WithoutCancel(ctx), f.Node, f.For))
					sleepUntil(ctx, start.Add(f.At+f.For))
					record(f, "resume", nil)
					return
				}
				record(f, "pause", ctrl.Pause(f.Node))
				end := start.Add(f.At + f.For)
				if f.For == 0 {
					end = time.Time{} // to the end of the run
				}
				sleepUntil(ctx, end)
				record(f, "resume", ctrl.Resume(f.Node))
			case Kill:
				record(f, "kill", ctrl.Kill(f.Node))
			case Restart:
				record(f, "restart", nil)
				record(f, "restarted", ctrl.Restart(context.WithoutCancel(ctx), f.Node, f.Delay))
			case Failover:
				record(f, "failover", ctrl.Promote(context.WithoutCancel(ctx), f.Node))
			case Clock:
				// The clock stays moved: the next cell gets a fresh topology.
				record(f, "clock "+SignedDuration(f.Jump), ctrl.ClockJump(context.WithoutCancel(ctx), f.Node, f.Jump))
			case Latency, Partition:
				if f.Kind == Latency {
					record(f, "latency", net.Latency(f))
				} else {
					record(f, "partition", net.Partition(f))
				}
				end := start.Add(f.At + f.For)
				if f.For == 0 {
					end = time.Time{}
				}
				sleepUntil(ctx, end)
				record(f, "heal", net.Heal(f))
			}
		})
	}
	wg.Wait()
	slices.SortFunc(events, func(a, b Event) int { return cmp.Compare(a.AtS, b.AtS) })
	return events
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
