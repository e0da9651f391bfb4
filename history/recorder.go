package history

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// DefaultCapacity is a recorder's capacity, in events, when its options
// give none: 4 Mi events (128 MiB of address space, touched only as events
// are written), enough for a 10 s cell of 50,000 cycles per second at eight
// events a cycle (acquire, enter, exit, release, each invoked and
// completed; a renewal adds two more).
const DefaultCapacity = 1 << 22

// ID names a recorded invocation: [Recorder.Invoke] returns it,
// [Recorder.Complete] takes it, and the later operations of a lease take
// their acquire's ID as their lease.
type ID int32

// NoID is the ID of an invocation that was not recorded because the
// recorder was full; completing it does nothing.
const NoID ID = -1

// RecorderOptions configures a [Recorder].
type RecorderOptions struct {
	// Capacity is the most events the recorder holds; later ones are
	// dropped and the history is marked cut. Default DefaultCapacity; at
	// most math.MaxInt32.
	Capacity int
	// Keys are the lock names, indexed by the key numbers that Invoke
	// takes. Required: at least one.
	Keys []string
	// Limit is how many holders one key admits (1 for a lock, N for a
	// semaphore); it goes into the history's header. Default 1.
	Limit int
	// Cell names the cell in the history's header. Default empty.
	Cell string
	// Start is time 0 of the history. Default: when NewRecorder is called.
	Start time.Time
}

// slot is one recorded event, 32 bytes without pointers, so that a
// recorder of millions of events costs the garbage collector nothing.
type slot struct {
	time    int64  // ns since start
	fence   uint64 // fencing token, 0 for none
	ref     int32  // invocation: the lease's acquire; completion: the invocation
	process int32
	key     int32
	op      Op
	typ     Type
}

// Recorder is the bounded history of one cell, filled by its clients on
// the hot path. It is preallocated: Invoke and Complete take a clock
// reading and one atomic add, and never allocate. Many goroutines may call
// them at once — the clients, and their leases' renewal goroutines, which
// record extends of a lease beside its holder's operations; an extend may
// complete after its lease's release was recorded, even after the release
// completed. [Recorder.History] must be called after they all stopped
// recording (the caller stops them; an invocation not completed by then
// is pending).
type Recorder struct {
	start time.Time
	keys  []string
	limit int
	cell  string
	slots []slot
	next  atomic.Int64
}

// NewRecorder returns an empty recorder. It panics when opts has no keys
// or a capacity out of range, as those are programming errors.
func NewRecorder(opts RecorderOptions) *Recorder {
	if len(opts.Keys) == 0 {
		panic("history: NewRecorder: no keys")
	}
	if opts.Capacity == 0 {
		opts.Capacity = DefaultCapacity
	}
	if opts.Capacity < 0 || opts.Capacity > math.MaxInt32 {
		panic(fmt.Sprintf("history: NewRecorder: capacity %d out of range [1, %d]", opts.Capacity, math.MaxInt32))
	}
	if opts.Limit == 0 {
		opts.Limit = 1
	}
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	return &Recorder{start: opts.Start, keys: slices.Clone(opts.Keys), limit: opts.Limit,
		cell: opts.Cell, slots: make([]slot, opts.Capacity)}
}

// Invoke records that process starts op on key (an index into the
// options' Keys) and returns the invocation's ID. lease is the ID of the
// acquire whose lease op acts on; an Acquire ignores it (its own ID is its
// lease). It returns NoID when the recorder is full. It panics if key is
// out of range or lease is not an earlier ID (a programming error).
//
// Call it just before the operation, from the goroutine that then calls
// Complete (or one that Invoke happens before), once the Invoke that
// returned lease happened before it (as it does for a renewal goroutine
// that the acquire started).
func (r *Recorder) Invoke(process, key int, op Op, lease ID) ID {
	if key < 0 || key >= len(r.keys) {
		panic(fmt.Sprintf("history: Invoke: key %d out of range [0, %d)", key, len(r.keys)))
	}
	t := time.Since(r.start)
	i := r.next.Add(1) - 1
	if i >= int64(len(r.slots)) {
		return NoID
	}
	if op == Acquire {
		lease = ID(i)
	} else if lease < 0 || int64(lease) >= i {
		panic(fmt.Sprintf("history: Invoke: %s of lease %d, which is not a recorded acquire", op, lease))
	}
	r.slots[i] = slot{time: int64(t), ref: int32(lease), process: int32(process), key: int32(key), op: op, typ: Invoke}
	return ID(i)
}

// Complete records the outcome (OK, Fail or Info) of the invocation id,
// with the fencing token fence (0 for none). Call it just after the
// operation returned. Completing NoID records nothing (the event counts
// as dropped).
func (r *Recorder) Complete(id ID, outcome Type, fence uint64) {
	if id < 0 {
		r.next.Add(1)
		return
	}
	t := time.Since(r.start)
	i := r.next.Add(1) - 1
	if i >= int64(len(r.slots)) {
		return
	}
	inv := &r.slots[id]
	r.slots[i] = slot{time: int64(t), fence: fence, ref: int32(id), process: inv.process, key: inv.key, op: inv.op, typ: outcome}
}

// Len returns how many events were recorded (at most the capacity).
func (r *Recorder) Len() int { return int(min(r.next.Load(), int64(len(r.slots)))) }

// Dropped returns how many events were left out because the recorder was
// full.
func (r *Recorder) Dropped() int64 { return max(r.next.Load()-int64(len(r.slots)), 0) }

// Cut reports whether events were dropped: the history is then a prefix.
func (r *Recorder) Cut() bool { return r.Dropped() > 0 }

// History returns what was recorded, events sorted by time (ties keep the
// order they were recorded in) and renumbered. Call it after every client
// stopped: it does not synchronize with Invoke and Complete.
func (r *Recorder) History() *History {
	n := r.Len()
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		ta, tb := r.slots[a].time, r.slots[b].time
		switch {
		case ta < tb:
			return -1
		case ta > tb:
			return 1
		}
		return 0
	})
	newIndex := make([]int32, n)
	for i, old := range order {
		newIndex[old] = int32(i)
	}
	h := &History{Meta: Meta{Schema: Schema, Cell: r.cell, Limit: r.limit, Start: r.start,
		Capacity: len(r.slots), Dropped: r.Dropped(), Cut: r.Cut()}, Events: make([]Event, n)}
	for i, old := range order {
		s := r.slots[old]
		e := Event{Index: i, Type: s.typ, Op: s.op, Process: int(s.process), Key: r.keys[s.key], Time: s.time, Fence: s.fence}
		if s.typ == Invoke {
			e.Invoke, e.Lease = i, int(newIndex[s.ref])
		} else {
			e.Invoke = int(newIndex[s.ref])
			e.Lease = int(newIndex[r.slots[s.ref].ref])
		}
		h.Events[i] = e
	}
	// A completion recorded at the same nanosecond as its invocation but
	// before it in the slice cannot happen: the invocation's slot index is
	// always lower, and the stable sort keeps it first.
	return h
}
