package history

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Schema names the JSON-lines format this package writes and reads; it is
// the header line's "schema" field. A reader refuses any other.
const Schema = "lockbench-history/1"

// ErrFormat is wrapped by every error of [ReadJSON] about the content of a
// history file (as opposed to an I/O error).
var ErrFormat = errors.New("history: bad history file")

// Op is what an operation does.
type Op uint8

// The operations of a cell. A client's cycle is acquire → enter → exit →
// release; extend is a renewal of a held lease.
const (
	Acquire Op = iota // take the lock (or a permit of the semaphore)
	Release           // give it back
	Extend            // renew the lease's TTL while it is held
	Enter             // enter the protected resource's critical section
	Exit              // leave it (with or without its write taking effect)
	numOps
)

var opNames = [numOps]string{"acquire", "release", "extend", "enter", "exit"}

// String returns the op's name as the JSON form spells it.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// MarshalText implements encoding.TextMarshaler.
func (o Op) MarshalText() ([]byte, error) {
	if o >= numOps {
		return nil, fmt.Errorf("history: unknown op %d", uint8(o))
	}
	return []byte(opNames[o]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *Op) UnmarshalText(b []byte) error {
	for i, n := range opNames {
		if string(b) == n {
			*o = Op(i)
			return nil
		}
	}
	return fmt.Errorf("%w: op %q (known: %s)", ErrFormat, b, strings.Join(opNames[:], ", "))
}

// Type tells an invocation from a completion and, for a completion, the
// outcome, as Jepsen's :type does.
type Type uint8

// The types of events.
const (
	Invoke Type = iota // the operation starts
	OK                 // it completed and took effect
	Fail               // it completed and certainly did not take effect
	Info               // its outcome is unknown: it may or may not have taken effect
	numTypes
)

var typeNames = [numTypes]string{"invoke", "ok", "fail", "info"}

// String returns the type's name as the JSON form spells it.
func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// MarshalText implements encoding.TextMarshaler.
func (t Type) MarshalText() ([]byte, error) {
	if t >= numTypes {
		return nil, fmt.Errorf("history: unknown type %d", uint8(t))
	}
	return []byte(typeNames[t]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *Type) UnmarshalText(b []byte) error {
	for i, n := range typeNames {
		if string(b) == n {
			*t = Type(i)
			return nil
		}
	}
	return fmt.Errorf("%w: type %q (known: %s)", ErrFormat, b, strings.Join(typeNames[:], ", "))
}

// Event is one line of a history: an operation's invocation or its
// completion. docs/history.md describes every field with an example.
type Event struct {
	// Index is the event's position in the history, from 0, in time order.
	Index int `json:"index"`
	// Type is "invoke" or the completion's outcome: "ok", "fail", "info".
	Type Type `json:"type"`
	// Op is the operation: acquire, release, extend, enter or exit.
	Op Op `json:"op"`
	// Process is the client that ran the operation (its index in the cell).
	Process int `json:"process"`
	// Key is the lock's name.
	Key string `json:"key"`
	// Time is when the event happened, in nanoseconds of the monotonic
	// clock since the cell's start. An invocation's time is taken before
	// the call, a completion's after it returned.
	Time int64 `json:"time"`
	// Invoke is the index of the operation's invocation event: for an
	// invocation, its own index; for a completion, the one it completes.
	Invoke int `json:"invoke"`
	// Lease is the index of the invocation of the acquire whose lease the
	// operation acts on (for an acquire, its own invocation).
	Lease int `json:"lease"`
	// Fence is the fencing token the lease carries (on an acquire's ok
	// completion and on the enter that writes with it); 0, and left out of
	// the JSON, where there is none.
	Fence uint64 `json:"fence,omitempty"`
}

// Meta describes a history as a whole; it is the JSON form's header line.
type Meta struct {
	// Schema is [Schema].
	Schema string `json:"schema"`
	// Cell names the run cell the history is of (variant, clients, …);
	// free text, may be empty.
	Cell string `json:"cell,omitempty"`
	// Limit is how many holders one key admits: 1 for a lock, N for a
	// counting semaphore.
	Limit int `json:"limit"`
	// Start is the wall-clock time of the cell's start (time 0).
	Start time.Time `json:"start"`
	// Capacity is how many events the recorder could hold.
	Capacity int `json:"capacity"`
	// Dropped counts events left out because the recorder was full.
	Dropped int64 `json:"dropped"`
	// Cut says the history is a prefix of what happened: events were
	// dropped. Operations invoked before the cut whose completion fell
	// after it are pending (outcome unknown).
	Cut bool `json:"cut"`
}

// History is the record of one cell: its header and its events in time
// order.
type History struct {
	Meta   Meta
	Events []Event
}

// Operation is an invocation paired with its completion.
type Operation struct {
	Op      Op     `json:"op"`
	Process int    `json:"process"`
	Key     string `json:"key"`
	// Lease is the index of the invocation of the acquire whose lease the
	// operation acts on.
	Lease int `json:"lease"`
	// Outcome is OK, Fail or Info; Info also when no completion was
	// recorded (Pending).
	Outcome Type `json:"outcome"`
	// Call and Return are the invocation's and the completion's times; for
	// a pending operation Return is -1.
	Call   int64 `json:"call"`
	Return int64 `json:"return"`
	// Fence is the completion's fencing token, or the invocation's where
	// the completion has none.
	Fence uint64 `json:"fence,omitempty"`
	// Invoke and Complete are the events' indexes; Complete is -1 for a
	// pending operation.
	Invoke   int `json:"invoke"`
	Complete int `json:"complete"`
}

// Pending reports whether no completion of the operation was recorded.
func (o Operation) Pending() bool { return o.Complete < 0 }

// String describes the operation briefly, e.g. "p1 enter lockbench:k0 #12-15 ok".
func (o Operation) String() string {
	done := fmt.Sprintf("%d", o.Complete)
	if o.Pending() {
		done = "?"
	}
	return fmt.Sprintf("p%d %s %s #%d-%s %s", o.Process, o.Op, o.Key, o.Invoke, done, o.Outcome)
}

// Operations pairs every invocation with its completion and returns the
// operations in the order they were invoked.
func (h *History) Operations() []Operation {
	ops := make([]Operation, 0, len(h.Events)/2+1)
	at := make(map[int]int, len(h.Events)/2+1) // invoke index → position in ops
	for _, e := range h.Events {
		if e.Type == Invoke {
			at[e.Index] = len(ops)
			ops = append(ops, Operation{Op: e.Op, Process: e.Process, Key: e.Key, Lease: e.Lease,
				Outcome: Info, Call: e.Time, Return: -1, Fence: e.Fence, Invoke: e.Index, Complete: -1})
			continue
		}
		i, ok := at[e.Invoke]
		if !ok {
			continue // Validate refuses this; a hand-made History may have it
		}
		op := &ops[i]
		op.Outcome, op.Return, op.Complete = e.Type, e.Time, e.Index
		if e.Fence != 0 {
			op.Fence = e.Fence
		}
	}
	return ops
}

// Validate checks that h is well formed: indexes count from 0, times never
// go back, every completion completes an earlier invocation of the same
// process, key and op exactly once, and every lease names an acquire's
// invocation of the same key by the same process (a lease's operations,
// its renewals among them, are its holder's). Its errors wrap [ErrFormat].
func (h *History) Validate() error {
	if h.Meta.Limit < 1 {
		return fmt.Errorf("%w: limit %d: must be at least 1", ErrFormat, h.Meta.Limit)
	}
	completed := make(map[int]bool)
	var last int64
	for i, e := range h.Events {
		if err := h.validateEvent(i, e, last, completed); err != nil {
			return fmt.Errorf("%w: event %d: %s", ErrFormat, i, err)
		}
		last = e.Time
	}
	return nil
}

func (h *History) validateEvent(i int, e Event, last int64, completed map[int]bool) error {
	switch {
	case e.Index != i:
		return fmt.Errorf("index %d, want %d", e.Index, i)
	case e.Time < last:
		return fmt.Errorf("time %d is before the previous event's %d", e.Time, last)
	case e.Time < 0:
		return fmt.Errorf("time %d is negative", e.Time)
	case e.Op >= numOps || e.Type >= numTypes:
		return fmt.Errorf("unknown op or type")
	case e.Lease < 0 || e.Lease > i:
		return fmt.Errorf("lease %d is not an earlier event", e.Lease)
	}
	l := h.Events[e.Lease]
	if l.Op != Acquire || l.Type != Invoke || l.Key != e.Key {
		return fmt.Errorf("lease %d is not an acquire of key %q", e.Lease, e.Key)
	}
	if l.Process != e.Process {
		return fmt.Errorf("process %d acts on lease %d, which is process %d's", e.Process, e.Lease, l.Process)
	}
	if e.Type == Invoke {
		if e.Invoke != i {
			return fmt.Errorf("invocation's invoke is %d, want its own index", e.Invoke)
		}
		if e.Op == Acquire && e.Lease != i {
			return fmt.Errorf("acquire's lease is %d, want its own index", e.Lease)
		}
		return nil
	}
	if e.Invoke < 0 || e.Invoke >= i {
		return fmt.Errorf("invoke %d is not an earlier event", e.Invoke)
	}
	inv := h.Events[e.Invoke]
	switch {
	case inv.Type != Invoke:
		return fmt.Errorf("invoke %d is not an invocation", e.Invoke)
	case inv.Process != e.Process || inv.Key != e.Key || inv.Op != e.Op || inv.Lease != e.Lease:
		return fmt.Errorf("completion does not match invocation %d (process, key, op or lease differ)", e.Invoke)
	case completed[e.Invoke]:
		return fmt.Errorf("invocation %d is completed twice", e.Invoke)
	}
	completed[e.Invoke] = true
	return nil
}

// Keys returns the history's distinct keys, sorted.
func (h *History) Keys() []string {
	seen := make(map[string]bool)
	var keys []string
	for _, e := range h.Events {
		if !seen[e.Key] {
			seen[e.Key] = true
			keys = append(keys, e.Key)
		}
	}
	sort.Strings(keys)
	return keys
}
