package faults

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockbench/lockbench/measure"
)

// ErrBadFault is wrapped by every Parse and Check error.
var ErrBadFault = errors.New("bad fault")

// ErrCrashed is what a crashed client's steps return: the client is gone.
var ErrCrashed = errors.New("faults: client crashed")

// Kind is what a fault does.
type Kind string

// The kinds of fault.
const (
	Pause    Kind = "pause"    // SIGSTOP the node, SIGCONT after For (default: to the end of the run)
	Kill     Kind = "kill"     // SIGKILL the node; it stays down
	Restart  Kind = "restart"  // kill the node and start it again after Delay, without its data
	Failover Kind = "failover" // promote the replica Node (SENTINEL FAILOVER, CLUSTER FAILOVER, REPLICAOF NO ONE)
	Clock    Kind = "clock"    // move Node's wall clock by Jump (negative: back), as its redis-server sees it; it stays moved
	// ScriptFlush empties Node's script cache (SCRIPT FLUSH), as a node
	// that restarted or took over from another has it: the next EVALSHA
	// of a script loaded before answers NOSCRIPT.
	ScriptFlush Kind = "script-flush"

	// Network faults: through the in-process proxies on the links between
	// the clients and the node (node=), or on every link between two
	// sides (sides=); the nodes themselves are not touched.
	Latency   Kind = "latency"   // every byte on the links delayed by Latency ± Jitter, for For
	Partition Kind = "partition" // no traffic on the links for For (connections stay open, silent)
	Reset     Kind = "reset"     // the links' connections reset (TCP RST) when they next carry data, for For; with Fraction, that fraction of them

	// Client faults: they act on the clients, not on any server.
	HolderPause Kind = "holder-pause" // the next holder freezes for For, its renewals too (a stop-the-world pause)
	HolderCrash Kind = "holder-crash" // the next holder dies holding its lease: no release, no renewal
	StepDelay   Kind = "step-delay"   // at Step, wait Delay (for Fraction of the times, at most Count times)
	StepCrash   Kind = "step-crash"   // at Step, the client dies (for Fraction of the times, at most Count times)
)

// Kinds lists the fault kinds Parse accepts.
var Kinds = []Kind{Pause, Kill, Restart, Failover, Clock, ScriptFlush, Latency, Partition, Reset, HolderPause, HolderCrash, StepDelay, StepCrash}

// OnNode reports whether the kind acts on a node (and so needs a topology
// lockbench started).
func (k Kind) OnNode() bool {
	return k == Pause || k == Kill || k == Restart || k == Failover || k == Clock || k == ScriptFlush
}

// OnNetwork reports whether the kind acts on the network to a node.
func (k Kind) OnNetwork() bool { return k == Latency || k == Partition || k == Reset }

// NamesNode reports whether the kind needs node= (a network fault may
// name sides= instead).
func (k Kind) NamesNode() bool { return k.OnNode() || k.OnNetwork() }

// Fault is one scheduled fault (see measure.Fault for its fields and
// their defaults), its kind a Kind.
type Fault = measure.Fault[Kind]

// MaxJump bounds a clock fault's jump either way: a century.
const MaxJump = 100 * 365 * 24 * time.Hour

const examples = "examples: 'at=5s pause node=master for=3s', 'at=2s kill node=node-1', 'at=2s restart node=node-2 delay=1s', " +
	"'at=3s failover node=replica-1', 'at=1s clock node=node-3 jump=+30s', 'at=2s script-flush node=master', 'at=1s latency node=master latency=20ms jitter=5ms for=2s', 'at=1s partition node=node-1 for=1s', 'at=1s reset node=master fraction=0.3 for=1s', " +
	"'at=1s partition sides=master,clients-a|replicas,sentinels,clients-b for=5s', 'at=1s holder-pause for=2s', 'at=1s holder-crash', " +
	"'at=0s step-delay step=between-get-and-del delay=300ms fraction=0.5', 'at=0s step-crash step=after-setnx count=1'"

// Parse reads a fault spec: its kind as a bare word and key=value fields
// in any order: at= (required), node= (node faults; network faults take
// node= or sides=), for= (pause, holder-pause and the network faults),
// delay= (restart, step-delay), jump= (clock: a signed duration, +30s or
// -10s), latency= and jitter= (latency), step= and count= (step faults),
// fraction= (step faults, reset).
func Parse(spec string) (Fault, error) {
	bad := func(format string, args ...any) (Fault, error) {
		return Fault{}, fmt.Errorf("%w %q: %s (%s)", ErrBadFault, spec, fmt.Sprintf(format, args...), examples)
	}
	var f Fault
	seen := map[string]bool{}
	for _, word := range strings.Fields(spec) {
		key, value, isField := strings.Cut(word, "=")
		if !isField {
			if f.Kind != "" {
				return bad("two kinds, %q and %q", f.Kind, word)
			}
			if !slices.Contains(Kinds, Kind(word)) {
				return bad("unknown kind %q (known: %s)", word, kindList())
			}
			f.Kind = Kind(word)
			continue
		}
		if seen[key] {
			return bad("%s= given twice", key)
		}
		seen[key] = true
		switch key {
		case "node":
			if value == "" {
				return bad("node= needs a node name")
			}
			f.Node = value
		case "sides":
			sides, err := parseSides(value)
			if err != nil {
				return bad("%v", err)
			}
			f.Sides = sides
		case "step":
			if value == "" {
				return bad("step= needs a step name")
			}
			f.Step = value
		case "fraction":
			x, err := strconv.ParseFloat(value, 64)
			if err != nil || !(x > 0 && x <= 1) {
				return bad("fraction=%q is not in (0, 1]", value)
			}
			f.Fraction = x
		case "count":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return bad("count=%q is not a whole number of at least 1", value)
			}
			f.Count = n
		case "jump":
			d, err := time.ParseDuration(value)
			if err != nil || d == 0 || d > MaxJump || d < -MaxJump {
				return bad("jump=%q is not a duration other than 0 within 100 years either way (+30s, -10s)", value)
			}
			f.Jump = d
		case "at", "for", "delay", "latency", "jitter":
			d, err := time.ParseDuration(value)
			if err != nil || d < 0 || (key == "for" && d == 0) {
				return bad("%s=%q is not a duration", key, value)
			}
			switch key {
			case "at":
				f.At = d
			case "for":
				f.For = d
			case "delay":
				f.Delay = d
			case "latency":
				f.Latency = d
			default:
				f.Jitter = d
			}
		default:
			return bad("unknown field %q (fields: at, node, sides, for, delay, jump, latency, jitter, step, fraction, count)", key)
		}
	}
	switch {
	case f.Kind == "":
		return bad("no kind (known: %s)", kindList())
	case !seen["at"]:
		return bad("no at=")
	case f.Sides != "" && !f.Kind.OnNetwork():
		return bad("sides= goes with the network faults: latency, partition, reset")
	case f.Sides != "" && f.Node != "":
		return bad("give node= or sides=, not both")
	case f.Kind.NamesNode() && f.Node == "" && f.Sides == "":
		return bad("no node=")
	case !f.Kind.NamesNode() && f.Node != "":
		return bad("node= goes with node and network faults, not %s", f.Kind)
	case seen["for"] && f.Kind != Pause && f.Kind != HolderPause && !f.Kind.OnNetwork():
		return bad("for= goes with pause, holder-pause, latency, partition and reset")
	case f.Kind == Clock && f.Jump == 0:
		return bad("clock needs jump=")
	case seen["jump"] && f.Kind != Clock:
		return bad("jump= goes with clock")
	case f.Kind == Latency && f.Latency == 0:
		return bad("latency needs latency=")
	case (seen["latency"] || seen["jitter"]) && f.Kind != Latency:
		return bad("latency= and jitter= go with latency")
	case f.Kind == HolderPause && f.For == 0:
		return bad("holder-pause needs for=")
	case seen["delay"] && f.Kind != Restart && f.Kind != StepDelay:
		return bad("delay= goes with restart and step-delay")
	case (f.Kind == StepDelay || f.Kind == StepCrash) != (f.Step != ""):
		return bad("step= goes with step-delay and step-crash, and they need it")
	case f.Kind == StepDelay && f.Delay == 0:
		return bad("step-delay needs delay=")
	case seen["count"] && f.Step == "":
		return bad("count= goes with step faults")
	case seen["fraction"] && f.Step == "" && f.Kind != Reset:
		return bad("fraction= goes with step faults and reset")
	}
	if (f.Step != "" || f.Kind == Reset) && f.Fraction == 0 {
		f.Fraction = 1
	}
	return f, nil
}

func kindList() string {
	var s []string
	for _, k := range Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// Check reports the first fault that cannot run: one past the end of the
// measured phase (length; 0 when unknown), or on a node not in nodes (nil
// when not known yet). The sides of a network fault are checked by
// CheckSides, which knows the nodes' roles and the client groups.
func Check(faults []Fault, length time.Duration, nodes []string) error {
	for _, f := range faults {
		if length > 0 && f.At >= length {
			return fmt.Errorf("%w %q: at=%v is not within the measured %v", ErrBadFault, f, f.At, length)
		}
		if f.Kind.NamesNode() && f.Sides == "" && nodes != nil && !slices.Contains(nodes, f.Node) {
			return fmt.Errorf("%w %q: no node %q (nodes: %s)", ErrBadFault, f, f.Node, strings.Join(nodes, ", "))
		}
	}
	return nil
}

// SignedDuration is d with its sign, +30s or -10s, as jump= takes it
// (measure.SignedDuration).
func SignedDuration(d time.Duration) string { return measure.SignedDuration(d) }
