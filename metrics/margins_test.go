package metrics

import (
	"testing"
	"time"
)

// Margins count how many of how many, and hold the positive values only:
// validity left at every acquisition (none left counted apart), late time
// and notice delay of the late ones.
func TestMargins(t *testing.T) {
	a, b := NewMargins(), NewMargins()
	a.Acquired(9 * time.Second)
	a.Acquired(-time.Millisecond) // expired before the acquire returned
	b.Acquired(8 * time.Second)
	a.Exited(-time.Second) // in time
	a.Exited(200 * time.Millisecond)
	b.Exited(0)
	b.Noticed(-time.Millisecond) // told in time
	b.Noticed(700 * time.Millisecond)
	s, ok := MergeMargins([]*Margins{a, nil, b})
	if !ok {
		t.Fatal("MergeMargins found no margins")
	}
	want := MarginCounts{ExpiredAtAcquire: 1, Holds: 3, LateHolds: 1, Notices: 2, LateNotices: 1, Clamped: 1}
	if s.MarginCounts != want {
		t.Errorf("counts %+v, want %+v", s.MarginCounts, want)
	}
	if n, lowest := s.ValidityLeft.TotalCount(), s.ValidityLeft.Min(); n != 3 || lowest != 1 {
		t.Errorf("validity left: %d values, lowest %dµs; want 3, the expired one at 1µs", n, lowest)
	}
	if s.Late.TotalCount() != 1 || s.Late.ValueAtQuantile(50) < 199_000 || s.Late.ValueAtQuantile(50) > 201_000 {
		t.Errorf("late: %d values, p50 %dµs; want the one of 200ms", s.Late.TotalCount(), s.Late.ValueAtQuantile(50))
	}
	if s.LossNotice.TotalCount() != 1 || s.LossNotice.Max() < 699_000 {
		t.Errorf("loss notice: %d values, max %dµs; want the one of 700ms", s.LossNotice.TotalCount(), s.LossNotice.Max())
	}
	if _, ok := MergeMargins([]*Margins{nil, nil}); ok {
		t.Error("MergeMargins of no margins found some")
	}
}

// Recording margins allocates nothing.
func TestMarginsDoNotAllocate(t *testing.T) {
	m := NewMargins()
	if n := testing.AllocsPerRun(1000, func() {
		m.Acquired(time.Second)
		m.Exited(time.Millisecond)
		m.Noticed(time.Millisecond)
	}); n != 0 {
		t.Errorf("%v allocations per record, want 0", n)
	}
}
