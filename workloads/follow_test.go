package workloads

import (
	"testing"
	"time"
)

// Follow tells the lock names that moved (not answered between the fault
// and the promotion) from those that did not, and times the first answer
// and the first acquisition on a moved one from the promotion seen.
func TestFollow(t *testing.T) {
	f := NewFollow(Spec{Keys: 3})
	at := func(ms int) time.Time { return f.epoch.Add(time.Duration(ms) * time.Millisecond) }
	for ms := 100; ms <= 4000; ms += 100 {
		f.answered(0, at(ms), true) // on a master that keeps serving
	}
	f.answered(1, at(1001), false) // in flight when its master stopped at 1000
	f.answered(2, at(900), true)
	f.Mark("replica-1", at(3000), at(1000))
	f.answered(0, at(3050), true)
	f.answered(2, at(3400), false) // busy: served, not acquired
	f.answered(1, at(3500), true)
	f.answered(2, at(3600), true)
	got, ok := f.Times(0)
	want := FollowTimes{Node: "replica-1", Seen: at(3000), Served: 400 * time.Millisecond, Acquired: 500 * time.Millisecond, Moved: 2}
	if !ok || got != want {
		t.Errorf("Times(0) = %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := f.Times(1); ok {
		t.Error("Times(1) of one mark")
	}

	// Nobody answered on the moved names before the end: negative times.
	f = NewFollow(Spec{Keys: 1})
	f.answered(0, at(500), true)
	f.Mark("replica-1", at(3000), at(1000))
	if got, _ := f.Times(0); got.Moved != 1 || got.Served >= 0 || got.Acquired >= 0 {
		t.Errorf("never followed: %+v, want negative times", got)
	}
	// A nil Follow records nothing and has no figures.
	var none *Follow
	none.answered(0, at(1), true)
	none.Mark("x", at(1), at(0))
	if _, ok := none.Times(0); ok {
		t.Error("a nil Follow has figures")
	}
}
