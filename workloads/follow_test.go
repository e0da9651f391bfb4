package workloads

import (
	"testing"
	"time"
)

// Follow times a promotion from when it was seen to the first arrival of
// the clients' commands on that node since the fault that caused it, and
// to the first acquisition at or after that arrival; an arrival on
// another node, or before the fault, is not the clients following it.
func TestFollow(t *testing.T) {
	f := NewFollow()
	at := func(ms int) time.Time { return f.epoch.Add(time.Duration(ms) * time.Millisecond) }
	f.Arrived("replica-1", at(500)) // before the fault: an earlier promotion's
	f.acquired(at(600))
	f.Mark("replica-1", at(3000), at(1000))
	f.acquired(at(3100))             // still on the old master, before the clients reached the new one
	f.Arrived("replica-2", at(3200)) // another node
	f.Arrived("replica-1", at(3400))
	f.acquired(at(3500))
	f.acquired(at(3600))
	got, ok := f.Times(0)
	want := FollowTimes{Node: "replica-1", Seen: at(3000), Served: 400 * time.Millisecond, Acquired: 500 * time.Millisecond}
	if !ok || got != want {
		t.Errorf("Times(0) = %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := f.Times(1); ok {
		t.Error("Times(1) of one mark")
	}

	// The clients reached it before the watch saw the promotion (within
	// one poll): negative figures.
	f = NewFollow()
	f.Arrived("replica-1", at(2940))
	f.acquired(at(2960))
	f.Mark("replica-1", at(3000), at(1000))
	want = FollowTimes{Node: "replica-1", Seen: at(3000), Served: -60 * time.Millisecond, Acquired: -40 * time.Millisecond}
	if got, _ := f.Times(0); got != want {
		t.Errorf("followed before seen: %+v; want %+v", got, want)
	}

	// Served but nothing acquired after (a lock left held on the new
	// master), and a promotion the clients never reached: Never.
	f = NewFollow()
	f.Mark("replica-1", at(3000), at(1000))
	f.Mark("replica-2", at(3000), at(1000))
	f.Arrived("replica-1", at(3100))
	if got, _ := f.Times(0); got.Served != 100*time.Millisecond || got.Acquired != Never {
		t.Errorf("served, never acquired: %+v", got)
	}
	if got, _ := f.Times(1); got.Served != Never || got.Acquired != Never {
		t.Errorf("never reached: %+v; want Never", got)
	}
	// A nil Follow records nothing and has no figures.
	var none *Follow
	none.acquired(at(1))
	none.Arrived("x", at(1))
	none.Mark("x", at(1), at(0))
	if _, ok := none.Times(0); ok {
		t.Error("a nil Follow has figures")
	}
}
