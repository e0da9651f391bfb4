package faults

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ErrBadFault is wrapped by every Parse and Check error.
var ErrBadFault = errors.New("bad fault")

// Kind is what a fault does.
type Kind string

// The kinds of fault.
const (
	Pause    Kind = "pause"    // SIGSTOP the node, SIGCONT after For (default: to the end of the run)
	Kill     Kind = "kill"     // SIGKILL the node; it stays down
	Restart  Kind = "restart"  // kill the node and start it again after Delay, without its data
	Failover Kind = "failover" // promote the replica Node (SENTINEL FAILOVER, CLUSTER FAILOVER, REPLICAOF NO ONE)
)

// Kinds lists the fault kinds Parse accepts.
var Kinds = []Kind{Pause, Kill, Restart, Failover}

// Fault is one scheduled fault.
type Fault struct {
	// At is when the fault starts, from the start of the measured phase.
	At time.Duration `json:"at_ns"`
	// Kind is what it does.
	Kind Kind `json:"kind"`
	// Node names the node (master, replica-1, node-3, ...).
	Node string `json:"node"`
	// For is how long a pause lasts. Default: to the end of the run.
	For time.Duration `json:"for_ns,omitempty"`
	// Delay is how long a restarted node stays down. Default 0.
	Delay time.Duration `json:"delay_ns,omitempty"`
}

const examples = "examples: 'at=5s pause node=master for=3s', 'at=2s kill node=node-1', 'at=2s restart node=node-2 delay=1s', 'at=3s failover node=replica-1'"

// Parse reads a fault spec: its kind as a bare word and key=value fields
// in any order: at= (required), node= (required), for= (pause), delay=
// (restart).
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
		case "at", "for", "delay":
			d, err := time.ParseDuration(value)
			if err != nil || d < 0 || (key == "for" && d == 0) {
				return bad("%s=%q is not a duration", key, value)
			}
			switch key {
			case "at":
				f.At = d
			case "for":
				f.For = d
			default:
				f.Delay = d
			}
		default:
			return bad("unknown field %q (fields: at, node, for, delay)", key)
		}
	}
	switch {
	case f.Kind == "":
		return bad("no kind (known: %s)", kindList())
	case !seen["at"]:
		return bad("no at=")
	case f.Node == "":
		return bad("no node=")
	case seen["for"] && f.Kind != Pause:
		return bad("for= goes with pause")
	case seen["delay"] && f.Kind != Restart:
		return bad("delay= goes with restart")
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

// String returns the fault in Parse's form.
func (f Fault) String() string {
	s := fmt.Sprintf("at=%v %s node=%s", f.At, f.Kind, f.Node)
	if f.For > 0 {
		s += fmt.Sprintf(" for=%v", f.For)
	}
	if f.Delay > 0 {
		s += fmt.Sprintf(" delay=%v", f.Delay)
	}
	return s
}

// Check reports the first fault that cannot run: one past the end of the
// measured phase (length; 0 when unknown), or on a node not in nodes (nil
// when not known yet).
func Check(faults []Fault, length time.Duration, nodes []string) error {
	for _, f := range faults {
		if length > 0 && f.At >= length {
			return fmt.Errorf("%w %q: at=%v is not within the measured %v", ErrBadFault, f, f.At, length)
		}
		if nodes != nil && !slices.Contains(nodes, f.Node) {
			return fmt.Errorf("%w %q: no node %q (nodes: %s)", ErrBadFault, f, f.Node, strings.Join(nodes, ", "))
		}
	}
	return nil
}
