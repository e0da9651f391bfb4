package metrics

import (
	"testing"
	"time"
)

func TestRecorderRecordsMicroseconds(t *testing.T) {
	tests := []struct {
		name        string
		duration    time.Duration
		wantMicros  int64
		wantClamped int64
	}{
		{"whole microseconds", 250 * time.Microsecond, 250, 0},
		{"truncated to microseconds", 1999 * time.Nanosecond, 1, 0},
		{"zero recorded as 1 µs", 0, 1, 0},
		{"sub-microsecond recorded as 1 µs", 300 * time.Nanosecond, 1, 0},
		{"negative clamped to 1 µs", -time.Millisecond, 1, 1},
		{"one hour kept", time.Hour, highestMicros, 0},
		{"above one hour clamped", 3 * time.Hour, highestMicros, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRecorder()
			r.RecordAcquire(tt.duration)
			r.RecordRelease(tt.duration)
			r.RecordHold(tt.duration)
			for name, h := range map[string]interface{ TotalCount() int64 }{
				"acquire": r.acquireLatency, "release": r.releaseLatency, "hold": r.holdTime,
			} {
				if got := h.TotalCount(); got != 1 {
					t.Errorf("%s: TotalCount = %d, want 1 (no sample dropped)", name, got)
				}
			}
			if got := r.acquireLatency.Max(); !r.acquireLatency.ValuesAreEquivalent(got, tt.wantMicros) {
				t.Errorf("recorded %d µs, want %d µs", got, tt.wantMicros)
			}
			if got := r.Clamped(); got != 3*tt.wantClamped {
				t.Errorf("Clamped = %d, want %d", got, 3*tt.wantClamped)
			}
			if got := r.Acquisitions(); got != 1 {
				t.Errorf("Acquisitions = %d, want 1", got)
			}
		})
	}
}

func TestRecorderReset(t *testing.T) {
	r := NewRecorder()
	r.RecordAcquire(time.Millisecond)
	r.RecordHold(2 * time.Hour)
	r.Attempts, r.FailedAttempts, r.Timeouts = 3, 2, 1
	r.Errors, r.LeaseLost = 4, 5
	r.Reset()
	if s := Merge([]*Recorder{r}); s.Acquisitions != 0 || s.Hold.TotalCount() != 0 ||
		s.Attempts != 0 || s.FailedAttempts != 0 || s.Timeouts != 0 ||
		s.Errors != 0 || s.LeaseLost != 0 || s.Clamped != 0 {
		t.Errorf("after Reset: %+v, want all zero", s)
	}
	r.RecordAcquire(time.Millisecond)
	if got := r.Acquisitions(); got != 1 {
		t.Errorf("Acquisitions after Reset and one record = %d, want 1", got)
	}
}

func TestRecorderDoesNotAllocate(t *testing.T) {
	r := NewRecorder()
	d := 1500 * time.Microsecond
	allocs := testing.AllocsPerRun(1000, func() {
		r.RecordAcquire(d)
		r.RecordRelease(d / 3)
		r.RecordHold(4 * d)
		r.Attempts++
		d += time.Microsecond
	})
	if allocs != 0 {
		t.Errorf("RecordAcquire+RecordRelease+RecordHold: %v allocs per run, want 0", allocs)
	}
}

func BenchmarkRecorderAcquire(b *testing.B) {
	r := NewRecorder()
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		r.RecordAcquire(time.Duration(i%100_000) * time.Microsecond)
		i++
	}
}
