package linearize

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/lockbench/lockbench/history"
)

// rawOp is an operation to build a history from; lease is the position of
// its lease's acquire among the ops; ret -1 leaves it without completion.
type rawOp struct {
	process int
	key     string
	op      history.Op
	call    int64
	ret     int64
	outcome history.Type
	lease   int
	fence   uint64
}

// build makes a valid history of ops, events sorted by time (calls before
// returns at equal times).
func build(limit int, ops []rawOp) *history.History {
	type ev struct {
		time int64
		ret  bool
		op   int
	}
	var evs []ev
	for i, o := range ops {
		evs = append(evs, ev{o.call, false, i})
		if o.ret >= 0 {
			evs = append(evs, ev{o.ret, true, i})
		}
	}
	slices.SortStableFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.time, b.time); c != 0 {
			return c
		}
		if a.ret != b.ret {
			if a.ret {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.op, b.op)
	})
	h := &history.History{Meta: history.Meta{Schema: history.Schema, Limit: limit}}
	invokeAt := make(map[int]int)
	for i, e := range evs {
		o := ops[e.op]
		typ := history.Invoke
		if e.ret {
			typ = o.outcome
		} else {
			invokeAt[e.op] = i
		}
		ev := history.Event{Index: i, Type: typ, Op: o.op, Process: o.process, Key: o.key, Time: e.time,
			Invoke: invokeAt[e.op], Lease: invokeAt[o.lease]}
		if e.ret && typ == history.OK {
			ev.Fence = o.fence
		}
		h.Events = append(h.Events, ev)
	}
	return h
}

// randomHistory is a few clients' cycles on one or two keys with random
// timings (many of them overlapping) and outcomes, every kind of unknown
// among them.
func randomHistory(rnd *rand.Rand, limit int) *history.History {
	return build(limit, randomOps(rnd, false))
}

// strayHistory is randomHistory with stray operations besides: extends
// (and now and then an ok release) of leases whose acquire did not
// succeed, extends after a lease's release, and extends under way across
// the release.
func strayHistory(rnd *rand.Rand, limit int) *history.History {
	return build(limit, randomOps(rnd, true))
}

// randomOps are randomHistory's operations, with strays when asked (the
// draws are the same without).
func randomOps(rnd *rand.Rand, strays bool) []rawOp {
	clients := 2 + rnd.IntN(2)
	keys := []string{"k0", "k1"}[:1+rnd.IntN(2)]
	var ops []rawOp
	span := func(t int64) (int64, int64) {
		call := t + int64(rnd.IntN(4))*10
		return call, call + int64(rnd.IntN(5))*10
	}
	outcome := func(okPct, failPct int) history.Type {
		switch r := rnd.IntN(100); {
		case r < okPct:
			return history.OK
		case r < okPct+failPct:
			return history.Fail
		}
		return history.Info
	}
	for c := 0; c < clients; c++ {
		t := int64(rnd.IntN(5)) * 10
		for cycle := 0; cycle < 1+rnd.IntN(3); cycle++ {
			key := keys[rnd.IntN(len(keys))]
			lease := len(ops)
			add := func(op history.Op, out history.Type) bool {
				call, ret := span(t)
				if rnd.IntN(25) == 0 {
					ret = -1 // never completed
				}
				ops = append(ops, rawOp{process: c, key: key, op: op, call: call, ret: ret, outcome: out, lease: lease})
				if ret < 0 {
					return false
				}
				t = ret
				return true
			}
			if !add(history.Acquire, outcome(75, 15)) || ops[len(ops)-1].outcome != history.OK {
				if ops[len(ops)-1].ret < 0 {
					break
				}
				if strays && rnd.IntN(2) == 0 { // renewed, or released, though not surely acquired
					op := history.Extend
					if rnd.IntN(4) == 0 {
						op = history.Release
					}
					add(op, outcome(70, 20))
				}
				continue
			}
			// A renewal, sometimes concurrent with what follows.
			if rnd.IntN(3) == 0 {
				saved := t
				add(history.Extend, outcome(70, 20))
				if rnd.IntN(2) == 0 {
					t = saved
				}
			}
			if !add(history.Enter, outcome(90, 0)) {
				break
			}
			if ops[len(ops)-1].outcome == history.OK {
				t += int64(rnd.IntN(6)) * 10 // the hold
				if rnd.IntN(15) == 0 {
					break // crashed inside
				}
				if !add(history.Exit, outcome(85, 5)) {
					break
				}
			}
			if rnd.IntN(12) == 0 {
				break // crashed holding
			}
			if strays && rnd.IntN(4) == 0 { // a renewal under way across the release
				ops = append(ops, rawOp{process: c, key: key, op: history.Extend, call: t,
					ret: t + int64(1+rnd.IntN(8))*10, outcome: outcome(70, 20), lease: lease})
			}
			if !add(history.Release, outcome(70, 20)) {
				break
			}
			if strays && rnd.IntN(4) == 0 { // a renewal after the release
				add(history.Extend, outcome(70, 20))
			}
			t += int64(rnd.IntN(3)) * 10
		}
	}
	return ops
}

// contended is a history of clients taking turns at one key of limit
// places, cycles cycles in all: each acquire waits (its interval spans
// other holders' stays) until a place is free. A broken lock grants one
// acquire in every brokenEvery (0: none) at once, place free or not.
func contended(clients, cycles, limit, brokenEvery int) *history.History {
	free := make([]int64, limit)    // when each place is next free
	ready := make([]int64, clients) // when each client next calls acquire
	var ops []rawOp
	for i := range cycles {
		c := i % clients
		call := ready[c]
		place := 0
		for p := range free {
			if free[p] < free[place] {
				place = p
			}
		}
		granted := max(call, free[place]) + 200
		if brokenEvery > 0 && i%brokenEvery == brokenEvery-1 {
			granted = call + 200
		}
		lease := len(ops)
		t := granted
		add := func(op history.Op, d int64) {
			ops = append(ops, rawOp{process: c, key: "k", op: op, call: t, ret: t + d, outcome: history.OK, lease: lease})
			t += d + 10
		}
		ops = append(ops, rawOp{process: c, key: "k", op: history.Acquire, call: call, ret: granted, outcome: history.OK, lease: lease})
		t += 10
		add(history.Enter, 20)
		t += 1000 // the hold
		add(history.Exit, 20)
		add(history.Release, 150)
		free[place] = max(free[place], t)
		ready[c] = t + 50
	}
	return build(limit, ops)
}
