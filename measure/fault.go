package measure

import (
	"fmt"
	"time"
)

// Fault is one scheduled fault. K is the type of its kind: faults.Kind
// where package faults parses and runs it (faults.Fault), text in the
// record (FaultSpec). Its JSON is the same either way.
type Fault[K ~string] struct {
	// At is when the fault starts, from the start of the measured phase.
	At time.Duration `json:"at_ns"`
	// Kind is what it does.
	Kind K `json:"kind"`
	// Node names the node (master, replica-1, node-3, ...); a network
	// fault on it acts between it and the clients.
	Node string `json:"node"`
	// Sides are the two sides of a network fault given by sides= instead
	// of node=, as faults.Parse writes them: the node and group names of
	// each side, split by commas, the sides by "|"
	// (master,clients-a|replicas). The fault acts on every link between a
	// member of one side and a member of the other.
	Sides string `json:"sides,omitempty"`
	// For is how long a pause lasts. Default: to the end of the run.
	For time.Duration `json:"for_ns,omitempty"`
	// Delay is how long a restarted node stays down, or how long a
	// step-delay waits. Default 0.
	Delay time.Duration `json:"delay_ns,omitempty"`
	// Step names the variant step of step-delay and step-crash
	// (after-setnx, between-get-and-del, ...).
	Step string `json:"step,omitempty"`
	// Fraction of the times a step is reached that it acts; of a reset,
	// the fraction of the links' connections it resets. Default 1.
	Fraction float64 `json:"fraction,omitempty"`
	// Count bounds how many times a step fault acts. Default: no bound.
	Count int `json:"count,omitempty"`
	// Latency and Jitter of a latency fault.
	Latency time.Duration `json:"latency_ns,omitempty"`
	Jitter  time.Duration `json:"jitter_ns,omitempty"`
	// Jump is how far a clock fault moves the node's clock: forward when
	// positive, back when negative; never 0.
	Jump time.Duration `json:"jump_ns,omitempty"`
}

// FaultSpec is a fault as the record keeps it, its kind as text.
type FaultSpec = Fault[string]

// Spec is the fault with its kind as text, as the record keeps it.
func (f Fault[K]) Spec() FaultSpec {
	return FaultSpec{At: f.At, Kind: string(f.Kind), Node: f.Node, Sides: f.Sides, For: f.For, Delay: f.Delay,
		Step: f.Step, Fraction: f.Fraction, Count: f.Count, Latency: f.Latency, Jitter: f.Jitter, Jump: f.Jump}
}

// String returns the fault in --fault's syntax (at=5s pause node=master
// for=3s), as faults.Parse reads it.
func (f Fault[K]) String() string {
	s := fmt.Sprintf("at=%v %s", f.At, string(f.Kind))
	if f.Node != "" {
		s += " node=" + f.Node
	}
	if f.Sides != "" {
		s += " sides=" + f.Sides
	}
	if f.Step != "" {
		s += fmt.Sprintf(" step=%s fraction=%v", f.Step, f.Fraction)
	}
	if f.Step == "" && f.Fraction > 0 && f.Fraction < 1 {
		s += fmt.Sprintf(" fraction=%v", f.Fraction)
	}
	if f.Count > 0 {
		s += fmt.Sprintf(" count=%d", f.Count)
	}
	if f.Latency > 0 {
		s += fmt.Sprintf(" latency=%v", f.Latency)
	}
	if f.Jitter > 0 {
		s += fmt.Sprintf(" jitter=%v", f.Jitter)
	}
	if f.For > 0 {
		s += fmt.Sprintf(" for=%v", f.For)
	}
	if f.Delay > 0 {
		s += fmt.Sprintf(" delay=%v", f.Delay)
	}
	if f.Jump != 0 {
		s += " jump=" + SignedDuration(f.Jump)
	}
	return s
}

// SignedDuration is d with its sign, +30s or -10s, as jump= takes it.
func SignedDuration(d time.Duration) string {
	if d > 0 {
		return "+" + d.String()
	}
	return d.String()
}

// FaultEvent is one thing a fault did, or that the fault schedule saw a
// node do, timed like a cell's per-second series.
type FaultEvent struct {
	// AtS is when it happened, in seconds from the start of the measured
	// phase, as the per-second series counts: for what the schedule did,
	// when it began to act (a failover that takes seconds is stamped when
	// it was asked for); for what it saw, when it saw it.
	AtS float64 `json:"at_s"`
	// Fault is the fault it belongs to, in --fault's syntax; for a
	// promotion or a demotion, the node fault it followed (none when none
	// did).
	Fault string `json:"fault"`
	// Action is what the schedule did (pause, resume, kill, restart,
	// failover, latency, partition, reset, heal, or clock with its jump:
	// clock +30s, clock -10s), what became of it (restarted: the node
	// answers again), what it saw a node do: promoted (a replica became a
	// master) or demoted (a master became a replica), how soon the
	// clients followed a promotion: served (the first command the new
	// master served for a client) and acquired (the first acquisition
	// there), or what a client fault did (holder-crash, ...).
	Action string `json:"action"`
	Node   string `json:"node"`
	// DurationS is how long it took, in seconds: a failover, until the
	// promotion was done; a promotion or demotion, from the fault it
	// followed; served and acquired, from the promotion seen (negative
	// when the clients followed before the watch saw it).
	DurationS float64 `json:"duration_s,omitempty"`
	// Error is why the action failed, if it did.
	Error string `json:"error,omitempty"`
}
