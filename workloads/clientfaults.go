package workloads

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/measure"
)

// maxStepEvents bounds the events kept per step fault: a fraction of many
// thousands of steps would otherwise flood the record (the count of
// crashes is kept apart).
const maxStepEvents = 100

// event records that a client fault acted on client c (on its process,
// for a client in a process apart: ProcessHolder).
func (d *driver) event(f *clientFault, c *client, action string) { d.eventAt(f, c, action, time.Now()) }

// eventAt is event at at.
func (d *driver) eventAt(f *clientFault, c *client, action string, at time.Time) {
	d.eventsMu.Lock()
	defer d.eventsMu.Unlock()
	d.events = append(d.events, measure.FaultEvent{AtS: at.Sub(d.measureAt).Seconds(), Fault: f.String(),
		Action: action, Node: c.faultNode()})
}

// clientFault is a client fault with its state during a cell.
type clientFault struct {
	faults.Fault
	claimed atomic.Bool  // a holder fault acts once
	acted   atomic.Int64 // times a step fault acted
}

func newClientFaults(fs []faults.Fault) []*clientFault {
	var out []*clientFault
	for _, f := range fs {
		if !f.Kind.OnNode() {
			out = append(out, &clientFault{Fault: f})
		}
	}
	return out
}

// due reports whether f's time has come at now, measured from the measured
// phase.
func (d *driver) due(f *clientFault, now time.Time) bool { return !now.Before(d.measureAt.Add(f.At)) }

// holderFault claims the first holder fault due at now not claimed yet,
// for the client that entered a critical section then; nil when none.
func (d *driver) holderFault(now time.Time) *clientFault {
	for _, f := range d.clientFaults {
		if (f.Kind == faults.HolderPause || f.Kind == faults.HolderCrash) && d.due(f, now) && f.claimed.CompareAndSwap(false, true) {
			return f
		}
	}
	return nil
}

// atStep is the client's variants.Config.AtStep: a crashed client's steps
// fail, a frozen client's steps wait for the thaw, and due step faults
// delay or crash the client at their step.
func (c *client) atStep(ctx context.Context, step string) error {
	if c.crashed.Load() {
		return faults.ErrCrashed
	}
	// A client never paused (frozenUntil 0) reads no clock here.
	if until := c.frozenUntil.Load(); until != 0 && time.Now().UnixNano() < until {
		t := time.NewTimer(time.Until(time.Unix(0, until)))
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	for _, f := range c.d.clientFaults {
		if f.Step != step || !c.d.due(f, time.Now()) || rand.Float64() >= f.Fraction {
			continue
		}
		n := f.acted.Add(1)
		if f.Count > 0 && n > int64(f.Count) {
			continue
		}
		if n <= maxStepEvents {
			c.d.event(f, c, string(f.Kind)+" at "+step)
		}
		switch f.Kind {
		case faults.StepDelay:
			t := time.NewTimer(f.Delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		case faults.StepCrash:
			c.crashed.Store(true)
			return faults.ErrCrashed
		}
	}
	return nil
}
