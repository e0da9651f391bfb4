package oracle_test

import (
	"fmt"

	"github.com/lockbench/lockbench/oracle"
)

// Two holders that both believe they own the lock sell the same ticket.
func ExampleMemory() {
	o := oracle.New(1, 1) // one resource, one holder at a time

	a := o.Enter(0)
	o.Exit(a) // counter 1

	b := o.Enter(0) // reads 1
	c := o.Enter(0) // reads 1 too: overlap
	o.Exit(b)       // writes 2
	o.Exit(c)       // writes 2 again: one update lost

	r := o.Report()
	fmt.Println("overlaps:", r.Overlaps, "max occupancy:", r.MaxOccupancy)
	fmt.Println("critical sections:", r.CriticalSections, "counter:", r.Counter, "lost updates:", r.LostUpdates)
	// Output:
	// overlaps: 1 max occupancy: 2
	// critical sections: 3 counter: 2 lost updates: 1
}

// A holder paused past its lease writes with an old fencing token after a
// later holder wrote with a newer one: the resource refuses the write.
func ExampleMemory_RejectStaleWrites() {
	o := oracle.New(1, 1)
	o.RejectStaleWrites()

	paused := o.EnterFenced(0, 33) // token 33, then a long pause: the lease expires
	next := o.EnterFenced(0, 34)   // the next holder, token 34
	fmt.Println("token 34 written:", o.Exit(next))
	fmt.Println("token 33 written:", o.Exit(paused)) // stale: refused

	r := o.Report()
	fmt.Println("rejected:", r.RejectedWrites, "counter:", r.Counter, "lost updates:", r.LostUpdates)
	// Output:
	// token 34 written: true
	// token 33 written: false
	// rejected: 1 counter: 1 lost updates: 0
}
