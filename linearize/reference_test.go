package linearize

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/lockbench/lockbench/history"
)

// The reference is the direct encoding of the semantics, without the
// package's reductions and segments: every operation as recorded, an
// unknown one (info, or never completed) pending with its return at the
// end of the history and a nondeterministic effect, one partition per key.

type refKind uint8

const (
	refEnter        refKind = iota // ok enter: needs room
	refEnterMaybe                  // unknown enter: in, or not
	refExit                        // exit: leaves (an exit of a lease not inside is fine only if its enter was not ok)
	refExitMaybe                   // unknown exit: left, or not yet
	refAcquire                     // ok acquire: needs room, or takes the place of an expirable lease
	refAcquireMaybe                // unknown acquire: as refAcquire, or no effect
	refExtend                      // ok extend: needs the lease held
	refNoop                        // failed or unknown extend
	refRelease                     // ok release: needs the lease held
	refReleaseLost                 // failed release: the lease is gone
	refReleaseMaybe                // unknown release: released, or not
)

type refInput struct {
	kind      refKind
	lease     int
	key       string
	enteredOK bool         // refExit: the lease's enter was ok
	expirable map[int]bool // leases not released ok
}

func refModel(limit int) porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Init: func() []any { return []any{""} },
		Step: func(state, in, _ any) []any {
			s, op := state.(string), in.(refInput)
			l := op.lease
			room := holdersOf(s) < limit
			var next []any
			takeOrEvict := func() {
				if holds(s, l) {
					return
				}
				if room {
					next = append(next, withLease(s, l))
				}
				for _, e := range leasesOf(s) {
					if op.expirable[e] {
						next = append(next, withLease(withoutLease(s, e), l))
					}
				}
			}
			switch op.kind {
			case refEnter:
				if room && !holds(s, l) {
					next = append(next, withLease(s, l))
				}
			case refEnterMaybe:
				next = append(next, s)
				if room && !holds(s, l) {
					next = append(next, withLease(s, l))
				}
			case refExit:
				if holds(s, l) {
					next = append(next, withoutLease(s, l))
				} else if !op.enteredOK {
					next = append(next, s)
				}
			case refExitMaybe, refReleaseMaybe:
				next = append(next, s, withoutLease(s, l))
			case refAcquire:
				takeOrEvict()
			case refAcquireMaybe:
				next = append(next, s)
				takeOrEvict()
			case refExtend, refRelease:
				if holds(s, l) {
					if op.kind == refRelease {
						next = append(next, withoutLease(s, l))
					} else {
						next = append(next, s)
					}
				}
			case refNoop:
				next = append(next, s)
			case refReleaseLost:
				next = append(next, withoutLease(s, l))
			}
			return next
		},
	}
	m := nm.ToModel()
	m.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
		at := map[string]int{}
		var parts [][]porcupine.Operation
		for _, op := range ops {
			k := op.Input.(refInput).key
			i, ok := at[k]
			if !ok {
				i = len(parts)
				at[k] = i
				parts = append(parts, nil)
			}
			parts[i] = append(parts[i], op)
		}
		return parts
	}
	return m
}

// refOperations encodes h's operations of view for the reference model;
// only keeps those of leases in keep, when keep is not nil.
func refOperations(h *history.History, view history.View, keep map[int]bool) []porcupine.Operation {
	ops := h.Operations()
	var end int64
	for _, e := range h.Events {
		end = max(end, e.Time)
	}
	infinity := end + 1
	expirable := map[int]bool{}
	enteredOK := map[int]bool{}
	for _, op := range ops {
		if op.Op == history.Acquire {
			expirable[op.Lease] = true
		}
	}
	for _, op := range ops {
		switch {
		case op.Op == history.Release && op.Outcome == history.OK:
			delete(expirable, op.Lease)
		case op.Op == history.Enter && op.Outcome == history.OK:
			enteredOK[op.Lease] = true
		}
	}
	var out []porcupine.Operation
	for _, op := range ops {
		if !view.Includes(op.Op) || (keep != nil && !keep[op.Lease]) {
			continue
		}
		unknown := op.Outcome == history.Info || op.Pending()
		ret := op.Return
		if unknown {
			ret = infinity
		}
		var k refKind
		switch {
		case op.Op == history.Enter && op.Outcome == history.OK:
			k = refEnter
		case op.Op == history.Enter && unknown:
			k = refEnterMaybe
		case op.Op == history.Exit && unknown:
			k = refExitMaybe
		case op.Op == history.Exit:
			k = refExit
		case op.Op == history.Acquire && op.Outcome == history.OK:
			k = refAcquire
		case op.Op == history.Acquire && unknown:
			k = refAcquireMaybe
		case op.Op == history.Extend && op.Outcome == history.OK:
			k = refExtend
		case op.Op == history.Extend:
			k = refNoop
		case op.Op == history.Release && op.Outcome == history.OK:
			k = refRelease
		case op.Op == history.Release && unknown:
			k = refReleaseMaybe
		case op.Op == history.Release:
			k = refReleaseLost
		default:
			continue // a failed enter or acquire did not happen
		}
		out = append(out, porcupine.Operation{ClientId: op.Process, Call: op.Call, Return: ret,
			Input: refInput{kind: k, lease: op.Lease, key: op.Key, enteredOK: enteredOK[op.Lease], expirable: expirable}})
	}
	return out
}

func refLinearizable(h *history.History, view history.View, limit int, keep map[int]bool) bool {
	return porcupine.CheckOperations(refModel(limit), refOperations(h, view, keep))
}

// Check agrees with the reference on thousands of random histories, in
// both views, for a lock and a semaphore; and every window it reports is
// minimal by the reference: its leases alone are not linearizable, and
// without any one of them they are.
func TestAgreesWithReference(t *testing.T) {
	agreesWithReference(t, randomHistory, rand.New(rand.NewPCG(1, 2)))
}

// The same with stray renewals: extends (and ok releases) of leases not
// surely acquired, extends under way across their lease's release and
// after it. An ok one by a non-holder is a violation.
func TestAgreesWithReferenceOnStrays(t *testing.T) {
	agreesWithReference(t, strayHistory, rand.New(rand.NewPCG(3, 4)))
}

func agreesWithReference(t *testing.T, generate func(*rand.Rand, int) *history.History, rnd *rand.Rand) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, view := range []history.View{history.CriticalSections, history.Leases} {
		verdicts := map[Verdict]int{}
		for i := range n {
			limit := 1 + rnd.IntN(2)
			h := generate(rnd, limit)
			if err := h.Validate(); err != nil {
				t.Fatalf("generated history %d: %v", i, err)
			}
			res, err := Check(h, Options{View: view})
			if err != nil {
				t.Fatal(err)
			}
			verdicts[res.Verdict]++
			want := refLinearizable(h, view, limit, nil)
			if (res.Verdict == Linearizable) != want || res.Verdict == Unknown {
				t.Fatalf("%s, history %d (limit %d): verdict %q, reference linearizable=%v\n%s",
					view, i, limit, res.Verdict, want, dump(h))
			}
			if res.Window != nil {
				checkMinimal(t, h, view, limit, res.Window)
			}
		}
		t.Logf("%s: %v", view, verdicts)
		for _, v := range []Verdict{Linearizable, NotLinearizable} {
			if verdicts[v] < n/10 {
				t.Errorf("%s: only %d of %d histories %s: the generator does not test both sides", view, verdicts[v], n, v)
			}
		}
	}
}

func checkMinimal(t *testing.T, h *history.History, view history.View, limit int, w *Window) {
	t.Helper()
	keep := map[int]bool{}
	for _, l := range w.Leases {
		keep[l] = true
	}
	if refLinearizable(h, view, limit, keep) {
		t.Fatalf("%s: window leases %v are linearizable by the reference\n%s", view, w.Leases, dump(h))
	}
	for _, drop := range w.Leases {
		delete(keep, drop)
		if !refLinearizable(h, view, limit, keep) {
			t.Fatalf("%s: window %v is not minimal: without lease %d still not linearizable\n%s", view, w.Leases, drop, dump(h))
		}
		keep[drop] = true
	}
}

func dump(h *history.History) string {
	s := ""
	for _, op := range h.Operations() {
		s += fmt.Sprintf("  %v [%d, %d] lease %d\n", op, op.Call, op.Return, op.Lease)
	}
	return s
}
