package metrics

import (
	"testing"
	"time"
)

func TestRecorderClampsAndCounts(t *testing.T) {
	start := time.Now()
	r := NewRecorder(start)
	r.Acquired(start, 500*time.Nanosecond, 500*time.Nanosecond) // below 1 µs: recorded as 1 µs
	r.Acquired(start.Add(1500*time.Millisecond), 2*time.Millisecond, time.Millisecond)
	r.Acquired(start.Add(1600*time.Millisecond), time.Hour, time.Hour) // above the range: clamped
	r.Released(-time.Millisecond)                                      // negative: clamped
	r.Add(start, Attempt)
	r.Add(start.Add(time.Second), Busy)
	if got := r.Acquisitions(); got != 3 {
		t.Errorf("acquisitions %d, want 3", got)
	}
	if r.clamped != 3 { // the hour twice (corrected and raw), the negative release
		t.Errorf("clamped %d, want 3", r.clamped)
	}
	s := Merge([]*Recorder{r}, []int64{3})
	if s.Acquire.Min() != 1 || s.Acquire.Max() < highestMicros*99/100 {
		t.Errorf("acquire min %d max %d", s.Acquire.Min(), s.Acquire.Max())
	}
	if s.AcquireRaw.ValueAtQuantile(50) != 1000 && s.AcquireRaw.ValueAtQuantile(50) != 999 {
		t.Errorf("raw p50 %d µs, want about 1000", s.AcquireRaw.ValueAtQuantile(50))
	}
	if len(s.Series) != 2 || s.Series[0].Acquisitions != 1 || s.Series[1].Acquisitions != 2 || s.Series[1].FailedAttempts != 1 {
		t.Errorf("series %+v", s.Series)
	}
	if s.Attempts != 1 || s.FailedAttempts != 1 {
		t.Errorf("attempts %d, busy %d", s.Attempts, s.FailedAttempts)
	}
}

func TestRecordingDoesNotAllocate(t *testing.T) {
	start := time.Now()
	r := NewRecorder(start)
	r.Acquired(start, time.Millisecond, time.Millisecond) // the second's histogram exists now
	allocs := testing.AllocsPerRun(1000, func() {
		r.Acquired(start, time.Millisecond, time.Millisecond)
		r.Released(100 * time.Microsecond)
		r.Held(time.Millisecond)
		r.Add(start, Attempt)
	})
	if allocs != 0 {
		t.Errorf("recording allocates %.1f times per operation", allocs)
	}
}

// BenchmarkRecorderAcquire is the harness's cost of recording one
// acquisition (target: no allocation, well under 100 ns).
func BenchmarkRecorderAcquire(b *testing.B) {
	start := time.Now()
	r := NewRecorder(start)
	b.ReportAllocs()
	for b.Loop() {
		r.Acquired(start, time.Millisecond, 900*time.Microsecond)
	}
}

// BenchmarkRecorderAcquireShared is the same with 8 goroutines sharing one
// recorder, as the clients of one stripe do.
func BenchmarkRecorderAcquireShared(b *testing.B) {
	start := time.Now()
	r := NewRecorder(start)
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Acquired(start, time.Millisecond, 900*time.Microsecond)
		}
	})
}
