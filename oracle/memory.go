package oracle

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/metrics"
)

// Memory is the protected resource of a run cell, kept in this process's
// memory, independent of Redis. It never trusts the lock: it counts how many
// holders are inside each resource's critical section at once and keeps a
// counter per resource that every holder reads on [Memory.Enter] and writes
// back, plus one, on [Memory.Exit]. When the lock works the counters equal
// the number of critical sections; every overlap of two holders loses an
// update.
//
// Where the lock hands out fencing tokens, the resource also remembers the
// highest token written to it and checks every write against it, as the
// storage in Kleppmann's "How to do distributed locking" (2016) does: a
// write whose token is lower is stale (its holder's lock has passed on to
// someone who has written since). By default a stale write is counted and
// applied; [Memory.RejectStaleWrites] makes the resource refuse it.
//
// A Memory is safe for concurrent use by many goroutines. What an entry or
// an exit costs does not grow with the clients or the resources of the
// cell: each touches its own resource, and reads no clock when the caller
// gives the time ([Memory.EnterFencedAt], [Memory.ExitAt]).
type Memory struct {
	limit     int64
	resources []resource
	// touched are the resources that have had an event, in the order of
	// their first: Report reads those alone, not every lock name a cell
	// could use (a million of them, most never taken in a cell).
	touchedMu sync.Mutex
	touched   []int
	// rejectStale makes the resources refuse stale writes; set before the
	// first Enter.
	rejectStale bool

	// handoff is the release-to-next-acquire histogram on contended
	// resources, in stripes: resource i records into stripe i mod
	// handoffStripes, so that entries into different resources seldom
	// share a mutex.
	handoff [handoffStripes]handoffStripe
}

// handoffStripes is how many handoff histograms an oracle keeps at most.
const handoffStripes = 16

// handoffStripe is one stripe of the handoff histogram, made at its first
// handoff.
type handoffStripe struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

// resource is the state of one protected resource. Every method of the
// oracle but Report and Handoff works on one resource alone, under its
// mutex (and, at a handoff, on one stripe of the handoff histogram).
type resource struct {
	mu sync.Mutex
	// listed is set once the resource is in Memory.touched.
	listed atomic.Bool
	// clock is the time of the resource's latest event: the times callers
	// give (EnterFencedAt, ExitAt) are read before the mutex is taken, so
	// that two callers' times may come in the other order; an event is
	// never timed before the one before it.
	clock   time.Time
	holders int64
	counter int64
	// overLimitSince is when holders last rose above the limit; it is
	// meaningful only while holders > limit.
	overLimitSince   time.Time
	timeOverLimit    time.Duration
	overlaps         int64
	maxOccupancy     int64
	criticalSections int64
	abandoned        int64
	// fence is the highest fencing token written (0: none yet);
	// staleWrites counts writes with a lower token that were applied,
	// rejectedWrites those that were refused.
	fence          uint64
	staleWrites    int64
	rejectedWrites int64
	// waiting counts clients between Waiting and GaveUp: clients that
	// found the resource held and wait for it. lastExit is when the last
	// holder left, contended whether anyone was waiting then.
	waiting   int64
	lastExit  time.Time
	contended bool
	// unavailable is whether the resource is free (holders below the
	// limit) while a client waits, since unavailableSince;
	// longestUnavailable is the longest such stretch that has ended.
	// enters numbers entries.
	unavailable        bool
	unavailableSince   time.Time
	longestUnavailable time.Duration
	enters             int64

	// Keeps the resources of the slice, which different clients enter at
	// once, off each other's cache lines.
	_ [64]byte
}

// at returns the time of an event on res that its caller read at t: t, or
// the resource's latest event time if t is before it. Call it with res.mu
// held.
func (res *resource) at(t time.Time) time.Time {
	if t.Before(res.clock) {
		return res.clock
	}
	res.clock = t
	return t
}

// New returns an oracle of resources distinct resources, numbered
// 0 to resources−1 (one per lock name), each allowing limit concurrent
// holders (1 for a mutual-exclusion lock). It panics if resources or limit is
// less than 1.
func New(resources int, limit int) *Memory {
	if resources < 1 {
		panic(fmt.Sprintf("oracle: New: resources must be at least 1, got %d", resources))
	}
	if limit < 1 {
		panic(fmt.Sprintf("oracle: New: limit must be at least 1, got %d", limit))
	}
	o := &Memory{limit: int64(limit), resources: make([]resource, resources)}
	now := time.Now()
	for i := range o.resources {
		o.resources[i].clock = now
	}
	return o
}

// RejectStaleWrites makes the resources refuse a write whose fencing token
// is lower than the highest they have been written with, instead of
// counting and applying it (the default). Call it before the first Enter.
func (o *Memory) RejectStaleWrites() { o.rejectStale = true }

// Waiting records that a client starts to wait for resource: its try
// found it held (every permit taken). Each Waiting is followed by one
// GaveUp, when the client stops waiting: it gave up, timed out, or is
// about to enter.
func (o *Memory) Waiting(resource int) { o.WaitingAt(resource, time.Now()) }

// WaitingAt is Waiting for a client that started to wait at at, a time
// the caller read from the machine's clock.
func (o *Memory) WaitingAt(resource int, at time.Time) {
	res := o.resource(resource)
	res.mu.Lock()
	res.waiting++
	res.settle(res.at(at), o.limit)
	res.mu.Unlock()
}

// GaveUp records that a waiting client stopped waiting for resource.
func (o *Memory) GaveUp(resource int) { o.GaveUpAt(resource, time.Now()) }

// GaveUpAt is GaveUp for a client that stopped waiting at at, a time the
// caller read from the machine's clock.
func (o *Memory) GaveUpAt(resource int, at time.Time) {
	res := o.resource(resource)
	res.mu.Lock()
	res.waiting = max(res.waiting-1, 0)
	res.settle(res.at(at), o.limit)
	res.mu.Unlock()
}

// settle starts or stops res's unavailability clock after an event at
// now: it runs while the resource has room for a holder (holders below
// limit) and a client waits. Call it with res.mu held.
func (res *resource) settle(now time.Time, limit int64) {
	switch free := res.holders < limit && res.waiting > 0; {
	case free && !res.unavailable:
		res.unavailable, res.unavailableSince = true, now
	case !free && res.unavailable:
		res.unavailable = false
		res.longestUnavailable = max(res.longestUnavailable, now.Sub(res.unavailableSince))
	}
}

// Enter records that a holder without a fencing token entered the critical
// section of resource and reads that resource's counter into the returned
// Entry. It panics if resource is out of range.
func (o *Memory) Enter(resource int) Entry { return o.EnterFenced(resource, 0) }

// EnterFenced is Enter for a holder whose lease carries fencing token
// token; its write at Exit is checked against the highest token the
// resource has been written with. A token of 0 means none: never checked.
func (o *Memory) EnterFenced(resource int, token uint64) Entry {
	return o.EnterFencedAt(resource, token, time.Now())
}

// EnterFencedAt is EnterFenced for a holder that entered at at, a time the
// caller read from the machine's clock (for the acquisition's latency): the
// oracle reads no clock of its own.
func (o *Memory) EnterFencedAt(resource int, token uint64, at time.Time) Entry {
	res := o.resource(resource)
	res.mu.Lock()
	defer res.mu.Unlock()
	now := res.at(at)
	if res.holders == 0 && res.contended {
		// The handoff: the resource was released while others waited.
		res.contended = false
		o.recordHandoff(resource, now.Sub(res.lastExit))
	}
	res.holders++
	if res.holders > o.limit {
		res.overlaps++
		if res.holders == o.limit+1 {
			res.overLimitSince = now
		}
	}
	res.maxOccupancy = max(res.maxOccupancy, res.holders)
	res.settle(now, o.limit)
	res.enters++
	return Entry{resource: resource, valueRead: res.counter, entered: true, epoch: res.enters, token: token}
}

// recordHandoff records a handoff of resource that took gap into the
// resource's stripe.
func (o *Memory) recordHandoff(resource int, gap time.Duration) {
	s := &o.handoff[resource%handoffStripes]
	s.mu.Lock()
	if s.h == nil {
		s.h = metrics.NewHistogram()
	}
	metrics.RecordMicros(s.h, gap.Microseconds())
	s.mu.Unlock()
}

// Exit records that the holder of e left the critical section after finishing
// its work: it writes the value read at Enter plus one to the resource's
// counter, and reports whether the resource took the write. A write whose
// fencing token is lower than the highest the resource has been written
// with is stale: counted and applied by default, refused under
// [Memory.RejectStaleWrites] (Exit then returns false and the counter is
// left as it was). A write without a token (0) is never checked.
func (o *Memory) Exit(e Entry) bool { return o.ExitAt(e, time.Now()) }

// ExitAt is Exit for a holder that left at at, a time the caller read from
// the machine's clock: the oracle reads no clock of its own.
func (o *Memory) ExitAt(e Entry, at time.Time) bool {
	res := o.leave(e, "Exit", at)
	defer res.mu.Unlock()
	if e.token != 0 {
		if e.token < res.fence {
			if o.rejectStale {
				res.rejectedWrites++
				return false
			}
			res.staleWrites++
		}
		res.fence = max(res.fence, e.token)
	}
	res.counter = e.valueRead + 1
	res.criticalSections++
	return true
}

// Abandon records that the holder of e left the critical section without
// writing, because it learned mid-hold that its lease was lost.
func (o *Memory) Abandon(e Entry) { o.AbandonAt(e, time.Now()) }

// AbandonAt is Abandon for a holder that left at at, a time the caller
// read from the machine's clock.
func (o *Memory) AbandonAt(e Entry, at time.Time) {
	res := o.leave(e, "Abandon", at)
	defer res.mu.Unlock()
	res.abandoned++
}

// leave removes e's holder from its resource, which it left at at, and
// returns the resource locked.
func (o *Memory) leave(e Entry, caller string, at time.Time) *resource {
	if !e.entered {
		panic("oracle: Memory." + caller + " of an Entry not returned by Enter")
	}
	res := o.resource(e.resource)
	res.mu.Lock()
	if res.holders <= 0 {
		res.mu.Unlock()
		panic(fmt.Sprintf("oracle: Memory.%s of resource %d, which has no holder", caller, e.resource))
	}
	now := res.at(at)
	if res.holders == o.limit+1 {
		res.timeOverLimit += now.Sub(res.overLimitSince)
	}
	res.holders--
	if res.holders == 0 {
		res.lastExit, res.contended = now, res.waiting > 0
	}
	res.settle(now, o.limit)
	return res
}

// resource returns the state of resource i, panicking if i is out of range.
func (o *Memory) resource(i int) *resource {
	if i < 0 || i >= len(o.resources) {
		panic(fmt.Sprintf("oracle: resource %d out of range [0, %d)", i, len(o.resources)))
	}
	res := &o.resources[i]
	if !res.listed.Load() && res.listed.CompareAndSwap(false, true) {
		o.touchedMu.Lock()
		o.touched = append(o.touched, i)
		o.touchedMu.Unlock()
	}
	return res
}

// Intruded reports whether a holder that entered the resource after e is
// inside it now. Asked between e's exit and its release, yes means the lock
// has passed on: a release that still succeeds frees another holder's lock
// (a stale release). It is a question about mutual exclusion: with a limit
// above 1, later holders are expected, and the answer is always no.
func (o *Memory) Intruded(e Entry) bool {
	if o.limit > 1 {
		return false
	}
	res := o.resource(e.resource)
	res.mu.Lock()
	defer res.mu.Unlock()
	return res.holders > 0 && res.enters > e.epoch
}
