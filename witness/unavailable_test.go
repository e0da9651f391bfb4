package witness

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// The witness times unavailability as oracle.Memory does: one random
// sequence of the workload's calls — a client starts to wait, gives up,
// stops waiting and enters, or enters without waiting; a holder exits or
// abandons; time passes — gives both the same longest unavailability,
// for a lock and for a semaphore, up to the round trips to the witness.
func TestSameUnavailabilityAsInMemoryOracle(t *testing.T) {
	ep := topotest.Endpoint(t)
	w := dial(t, ep)
	// Steps of time are 20ms or more; the witness's times are late by a
	// round trip, which a loaded machine stretches to a few ms.
	const step = 20 * time.Millisecond
	for _, limit := range []int{1, 2} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			const resources = 2
			mem := oracle.New(resources, limit)
			wit := w.Oracle(newPrefix(t), resources, limit, false)
			type pair struct{ mem, wit oracle.Entry }
			var inside []pair
			waiting := make([]int, resources)
			rnd := rand.New(rand.NewPCG(7, uint64(limit)))
			for range 120 {
				r := rnd.IntN(resources)
				switch op := rnd.IntN(10); {
				case op < 3:
					mem.Waiting(r)
					wit.Waiting(r)
					waiting[r]++
				case op < 4 && waiting[r] > 0:
					mem.GaveUp(r)
					wit.GaveUp(r)
					waiting[r]--
				case op < 6:
					if waiting[r] > 0 && rnd.IntN(2) == 0 { // a waiter gets it
						mem.GaveUp(r)
						wit.GaveUp(r)
						waiting[r]--
					}
					inside = append(inside, pair{mem.EnterFenced(r, 0), wit.EnterFenced(r, 0)})
				case op < 8 && len(inside) > 0:
					i := rnd.IntN(len(inside))
					p := inside[i]
					inside = slices.Delete(inside, i, i+1)
					if op == 7 {
						mem.Abandon(p.mem)
						wit.Abandon(p.wit)
					} else {
						mem.Exit(p.mem)
						wit.Exit(p.wit)
					}
				default:
					time.Sleep(time.Duration(1+rnd.IntN(3)) * step)
				}
			}
			for r := range resources { // the cell ends: every waiter stops
				for ; waiting[r] > 0; waiting[r]-- {
					mem.GaveUp(r)
					wit.GaveUp(r)
				}
			}
			got, want := wit.Report().LongestUnavailable, mem.Report().LongestUnavailable
			t.Logf("longest unavailable: witness %v, in memory %v", got, want)
			if want < step {
				t.Errorf("in memory %v: the sequence checks too little", want)
			}
			tolerance := 8*time.Millisecond + want/20
			if diff := got - want; diff > tolerance || diff < -tolerance {
				t.Errorf("longest unavailable: witness %v, in memory %v; want the same ±%v", got, want, tolerance)
			}
		})
	}
}

// The witness's clock of unavailability starts when a client waits for a
// free resource, not when the resource became free, and stops when the
// waiter stops waiting.
func TestUnavailableFromTheWait(t *testing.T) {
	ep := topotest.Endpoint(t)
	o := dial(t, ep).Oracle(newPrefix(t), 1, 1, false)
	o.Exit(o.EnterFenced(0, 0))
	time.Sleep(60 * time.Millisecond) // free, and no one waits
	o.Waiting(0)
	time.Sleep(20 * time.Millisecond)
	o.GaveUp(0)
	time.Sleep(60 * time.Millisecond) // free, and no one waits any more
	o.Exit(o.EnterFenced(0, 0))
	if u := o.Report().LongestUnavailable; u < 20*time.Millisecond || u > 50*time.Millisecond {
		t.Errorf("longest unavailable %v, want the 20ms of the wait", u)
	}
}
