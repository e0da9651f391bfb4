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

	// Nobody answered on the moved names before the end: Never.
	f = NewFollow(Spec{Keys: 1})
	f.answered(0, at(500), true)
	f.Mark("replica-1", at(3000), at(1000))
	if got, _ := f.Times(0); got.Moved != 1 || got.Served != Never || got.Acquired != Never {
		t.Errorf("never followed: %+v, want Never", got)
	}
	// A nil Follow records nothing and has no figures.
	var none *Follow
	none.answered(0, at(1), true)
	none.Mark("x", at(1), at(0))
	if _, ok := none.Times(0); ok {
		t.Error("a nil Follow has figures")
	}
}

// The clients may follow a promotion in the moments before the watch sees
// it (one poll): the name their master served went silent at the fault
// and was answered again past the half of the time to the promotion seen.
// It moved, and its figures are before the promotion seen: negative. (CI,
// 5 December: go-redis' cluster client, reading the slot map every
// second, followed a promotion before it was seen, the name counted as
// not moved and the cell had no served event.) A name whose answers only
// paused briefly across that half did not move.
func TestFollowBeforeSeen(t *testing.T) {
	f := NewFollow(Spec{Keys: 2})
	at := func(ms int) time.Time { return f.epoch.Add(time.Duration(ms) * time.Millisecond) }
	for ms := 10; ms <= 3000; ms += 10 {
		if ms < 1990 || ms > 2030 { // a 50 ms stall across the half
			f.answered(0, at(ms), true)
		}
	}
	f.answered(1, at(990), true)
	f.answered(1, at(1001), true)  // in flight when its master stopped at 1000
	f.answered(1, at(2940), false) // the new master, promoted before 3000
	f.answered(1, at(2960), true)
	f.answered(1, at(2990), true)
	f.Mark("replica-1", at(3000), at(1000))
	f.answered(1, at(3010), true)
	got, ok := f.Times(0)
	want := FollowTimes{Node: "replica-1", Seen: at(3000), Served: -60 * time.Millisecond, Acquired: -40 * time.Millisecond, Moved: 1}
	if !ok || got != want {
		t.Errorf("Times(0) = %+v, %v; want %+v", got, ok, want)
	}
}
