package linearize

import (
	"fmt"
	"slices"

	"github.com/lockbench/lockbench/history"
)

// kind is what a step does to the set of leases a key holds.
type kind uint8

const (
	begin   kind = iota // needs room (fewer than limit inside), adds the lease
	middle              // needs the lease inside, changes nothing
	end                 // needs the lease inside, removes it
	instant             // needs room, changes nothing: a lease that began and may have ended at once
	gone                // needs the lease out: a release that found it lost
	initial             // sets the state: the first step of a segment that starts with leases inside
)

var kindNames = [...]string{"begin", "middle", "end", "instant", "gone", "initial"}

func (k kind) String() string { return kindNames[k] }

// step is one operation as the model sees it, after the reductions that
// doc.go explains.
type step struct {
	kind      kind
	lease     int // the lease's acquire invocation index
	process   int
	call, ret int64
	op        history.Operation // as recorded
	holders   []int             // initial: the leases inside
	seg       int               // the segment the step is checked in
}

// keySteps are one key's steps, sorted by call time, and every recorded
// operation of the view on that key, by lease, for reports.
type keySteps struct {
	key    string
	steps  []step
	byUnit map[int][]history.Operation
	leases map[int][]step // byLease's, made when first asked
}

// byLease returns the key's steps grouped by lease, in call order.
func (ks *keySteps) byLease() map[int][]step {
	if ks.leases == nil {
		ks.leases = make(map[int][]step)
		for _, st := range ks.steps {
			ks.leases[st.lease] = append(ks.leases[st.lease], st)
		}
	}
	return ks.leases
}

// reduce turns h's operations of view into the model's steps, per key.
func reduce(h *history.History, view history.View) ([]*keySteps, error) {
	byKey := make(map[string]*keySteps)
	var order []string
	leases := make(map[int][]history.Operation)
	var leaseOrder []int
	for _, op := range h.Operations() {
		if !view.Includes(op.Op) {
			continue
		}
		if _, ok := leases[op.Lease]; !ok {
			leaseOrder = append(leaseOrder, op.Lease)
		}
		leases[op.Lease] = append(leases[op.Lease], op)
		if byKey[op.Key] == nil {
			byKey[op.Key] = &keySteps{key: op.Key, byUnit: make(map[int][]history.Operation)}
			order = append(order, op.Key)
		}
	}
	for _, l := range leaseOrder {
		ops := leases[l]
		ks := byKey[ops[0].Key]
		ks.byUnit[l] = ops
		var steps []step
		var err error
		if view == history.CriticalSections {
			steps, err = sectionSteps(ops)
		} else {
			steps, err = leaseSteps(ops)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: lease %d: %v", history.ErrFormat, l, err)
		}
		ks.steps = append(ks.steps, steps...)
	}
	out := make([]*keySteps, 0, len(order))
	for _, k := range order {
		ks := byKey[k]
		slices.SortStableFunc(ks.steps, func(a, b step) int { return compareInt64(a.call, b.call) })
		out = append(out, ks)
	}
	return out, nil
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sectionSteps are one lease's critical section: its enter begins, its
// exit ends. An enter that did not surely happen (fail, info, pending)
// leaves the lease out: being inside only ever takes room, so "not
// entered" is the reading of an unknown enter that can be linearized if
// any can. An exit always ends (a holder leaves even when its write was
// refused); one whose completion is unknown ends at its invocation, the
// earliest it may have taken effect, which is again the reading that
// frees room soonest. A section without an exit stays inside to the end.
func sectionSteps(ops []history.Operation) ([]step, error) {
	var enter, exit *history.Operation
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Op == history.Enter && enter == nil:
			enter = op
		case op.Op == history.Exit && exit == nil:
			exit = op
		default:
			return nil, fmt.Errorf("more than one %s", op.Op)
		}
	}
	if enter == nil || enter.Outcome != history.OK {
		return nil, nil
	}
	steps := []step{newStep(begin, *enter)}
	if exit != nil {
		steps = append(steps, newStep(end, *exit))
	}
	return steps, nil
}

// leaseSteps are one lease as the lock vouched for it: its acquire, its
// release, and every ok extend, which needs the lease held (a renewal by
// its holder changes nothing; failed and unknown extends change nothing
// at all).
//
// An acquire that did not surely succeed leaves the lease out (its holder
// never used it: at most it held a lease nobody vouched for, which any
// later acquire may take over) — unless the lock vouched for the lease
// later, with an ok extend or an ok release. After a failed acquire that
// is the lock vouching for a lease it refused, a violation: those steps
// need a lease that never begins. After an unknown one it proves that the
// acquire took effect, before the first of them returned: the lease
// begins within that span.
//
// A lease released ok is held from its acquire to its release, every ok
// extend in between needing it still held. A lease whose release failed,
// is unknown or never came may have expired at any moment after the lock
// last vouched for it — its acquire or its last ok extend — so that is
// where it ends; one never extended is an instant. A release that failed
// found the lease lost: it must be over by then (gone).
func leaseSteps(ops []history.Operation) ([]step, error) {
	var acquire, release *history.Operation
	var extends []history.Operation
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Op == history.Acquire && acquire == nil:
			acquire = op
		case op.Op == history.Release && release == nil:
			release = op
		case op.Op == history.Extend:
			if op.Outcome == history.OK {
				extends = append(extends, *op)
			}
		default:
			return nil, fmt.Errorf("more than one %s", op.Op)
		}
	}
	released := release != nil && release.Outcome == history.OK
	if acquire == nil {
		return nil, fmt.Errorf("no acquire")
	}
	var first step
	switch {
	case acquire.Outcome == history.OK:
		first = newStep(begin, *acquire)
	case len(extends) == 0 && !released:
		return nil, nil // never vouched for
	case acquire.Outcome == history.Fail:
		var steps []step
		for _, e := range extends {
			steps = append(steps, newStep(middle, e))
		}
		if released {
			steps = append(steps, newStep(end, *release))
		}
		return steps, nil
	default: // unknown, then vouched for: it took effect
		first = newStep(begin, *acquire)
		vouched := int64(-1)
		for _, e := range extends {
			if vouched < 0 || e.Return < vouched {
				vouched = e.Return
			}
		}
		if released && (vouched < 0 || release.Return < vouched) {
			vouched = release.Return
		}
		first.ret = max(first.call, vouched)
	}
	if released {
		steps := []step{first}
		for _, e := range extends {
			steps = append(steps, newStep(middle, e))
		}
		return append(steps, newStep(end, *release)), nil
	}
	var lost []step
	if release != nil && release.Outcome == history.Fail {
		lost = []step{newStep(gone, *release)}
	}
	if len(extends) == 0 {
		first.kind = instant
		return append([]step{first}, lost...), nil
	}
	// The last vouching is the extend that returned last.
	last := 0
	for i, e := range extends {
		if e.Return > extends[last].Return {
			last = i
		}
	}
	steps := []step{first}
	for i, e := range extends {
		if i != last {
			steps = append(steps, newStep(middle, e))
		}
	}
	return append(append(steps, newStep(end, extends[last])), lost...), nil
}

// newStep is op as a step of kind k; an operation without a known
// completion returns at its invocation (see sectionSteps).
func newStep(k kind, op history.Operation) step {
	ret := op.Return
	if op.Outcome == history.Info || op.Pending() {
		ret = op.Call
	}
	return step{kind: k, lease: op.Lease, process: op.Process, call: op.Call, ret: ret, op: op}
}
