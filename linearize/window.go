package linearize

import (
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/lockbench/lockbench/history"
)

// Window is an offending window: a smallest set of leases whose operations
// cannot be linearized, and the time they span. Removing any one of its
// leases makes the rest linearizable; for a lock it is typically two
// holders inside at once, for a semaphore of limit N, N+1.
type Window struct {
	// Key is the lock's name.
	Key string `json:"key"`
	// Leases are the leases involved, each named by the index of its
	// acquire's invocation; Processes the clients that held them, in the
	// same order.
	Leases    []int `json:"leases"`
	Processes []int `json:"processes"`
	// Ops are the recorded operations of the view of those leases, by
	// call time.
	Ops []history.Operation `json:"ops"`
	// From and To span the operations: the first call and the last
	// completion (the call, where the completion is unknown), in ns since
	// the cell's start.
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// unit is one lease of a failing segment, with all its steps (in every
// segment, calls as recorded).
type unit struct {
	lease int
	steps []step
}

// shortestWindow shrinks up to maxWindows of the failing segments, the
// earliest first, and returns the window with the fewest leases, then the
// shortest span.
func shortestWindow(m porcupine.Model, failing []segment, initClient int, deadline time.Time) *Window {
	slices.SortStableFunc(failing, func(a, b segment) int { return compareInt64(a.steps[0].call, b.steps[0].call) })
	var best *Window
	for i, seg := range failing {
		if i == maxWindows || (best != nil && time.Now().After(deadline)) {
			break
		}
		w := shrink(m, seg, initClient, deadline)
		if w == nil {
			continue
		}
		if best == nil || len(w.Leases) < len(best.Leases) ||
			(len(w.Leases) == len(best.Leases) && w.To-w.From < best.To-best.From) {
			best = w
		}
	}
	return best
}

// shrink finds a minimal illegal set of whole leases among those of a
// failing segment. The segment's leases, whole, are not linearizable:
// the leases inside at its start are among them, so the cut it starts at
// holds for them alone. Removing a whole lease from a linearizable history
// leaves it linearizable (it only frees room), so every set found illegal
// proves the history not linearizable, and a set whose members are each
// needed is minimal. It finds the shortest illegal prefix of the leases
// (those inside at the segment's start first, then by their first step in
// it), then the shortest illegal suffix of that prefix, then drops every
// lease in between that is not needed. A check that times out counts as
// linearizable: the set kept is always one proven illegal. It returns nil
// when not even the whole set could be proven illegal in time.
func shrink(m porcupine.Model, seg segment, initClient int, deadline time.Time) *Window {
	units := unitsOf(seg)
	illegal := func(set []*unit) bool {
		return checkOps(m, operations(stepsOf(set), 0, initClient, false), deadline) == porcupine.Illegal
	}
	if !illegal(units) {
		return nil
	}
	lo, hi := 1, len(units) // units[:hi] is illegal
	for lo < hi {
		mid := (lo + hi) / 2
		if illegal(units[:mid]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	k := hi
	lo, hi = 0, k-1 // units[lo:k] is illegal
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if illegal(units[mid:k]) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	set := slices.Clone(units[lo:k])
	for i := len(set) - 2; i >= 1; i-- {
		trial := slices.Delete(slices.Clone(set), i, i+1)
		if illegal(trial) {
			set = trial
		}
	}
	return windowOf(seg.key, set)
}

// unitsOf returns a segment's leases, those inside at its start first,
// then by their first step in it, each with all its steps.
func unitsOf(seg segment) []*unit {
	whole := seg.key.byLease()
	seen := map[int]bool{}
	var units []*unit
	add := func(lease int) {
		if !seen[lease] {
			seen[lease] = true
			units = append(units, &unit{lease: lease, steps: whole[lease]})
		}
	}
	for _, st := range seg.steps {
		if st.kind == initial {
			for _, l := range st.holders {
				add(l)
			}
			continue
		}
		add(st.lease)
	}
	return units
}

// stepsOf are the steps of a set of units, by call time.
func stepsOf(set []*unit) []step {
	var steps []step
	for _, u := range set {
		steps = append(steps, u.steps...)
	}
	slices.SortStableFunc(steps, func(a, b step) int { return compareInt64(a.call, b.call) })
	return steps
}

// windowOf reports a set of units with every recorded operation of their
// leases.
func windowOf(ks *keySteps, set []*unit) *Window {
	w := &Window{Key: ks.key, From: -1}
	for _, u := range set {
		w.Leases = append(w.Leases, u.lease)
		ops := ks.byUnit[u.lease]
		w.Processes = append(w.Processes, ops[0].Process)
		w.Ops = append(w.Ops, ops...)
	}
	slices.SortStableFunc(w.Ops, func(a, b history.Operation) int { return compareInt64(a.Call, b.Call) })
	for _, op := range w.Ops {
		end := op.Return
		if op.Pending() || op.Outcome == history.Info {
			end = op.Call
		}
		if w.From < 0 || op.Call < w.From {
			w.From = op.Call
		}
		w.To = max(w.To, end)
	}
	return w
}
