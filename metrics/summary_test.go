package metrics

import (
	"encoding/base64"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/lockbench/lockbench/measure"
)

func TestMergeSumsCounters(t *testing.T) {
	now := time.Now()
	a, b := NewRecorder(now), NewRecorder(now)
	for e, n := range map[EventKind]int{Attempt: 10, Busy: 4, Timeout: 1, Error: 2, LeaseLost: 3, Dropped: 2} {
		for range n {
			a.Add(now, e)
		}
	}
	for e, n := range map[EventKind]int{Attempt: 5, Busy: 1, Error: 1} {
		for range n {
			b.Add(now, e)
		}
	}
	a.Acquired(now, time.Millisecond, time.Millisecond)
	b.Acquired(now, 2*time.Millisecond, 2*time.Millisecond)
	b.Acquired(now, -time.Millisecond, -time.Millisecond) // clamped twice
	a.Released(time.Millisecond)
	b.Held(5 * time.Millisecond)

	s := Merge([]*Recorder{a, b}, []int64{1, 2})
	want := Summary{
		Acquisitions: 3, Attempts: 15, FailedAttempts: 5, Timeouts: 1,
		Errors: 3, LeaseLost: 3, Dropped: 2, Clamped: 2,
		Fairness: measure.Fairness{Clients: 2, MinPerClient: 1, MaxPerClient: 2, Jain: 9.0 / 10.0, PerClient: []int64{1, 2}},
	}
	got := s
	got.Acquire, got.AcquireRaw, got.Release, got.Hold, got.Lateness, got.Series = nil, nil, nil, nil, nil, nil
	if !reflect.DeepEqual(got.Fairness, want.Fairness) || got.Acquisitions != want.Acquisitions || got.Attempts != want.Attempts ||
		got.FailedAttempts != want.FailedAttempts || got.Timeouts != want.Timeouts || got.Errors != want.Errors ||
		got.LeaseLost != want.LeaseLost || got.Dropped != want.Dropped || got.Clamped != want.Clamped {
		t.Errorf("Merge =\n%+v\nwant\n%+v", got, want)
	}
	if n := s.Release.TotalCount(); n != 1 {
		t.Errorf("Release count = %d, want 1", n)
	}
	if n := s.Hold.TotalCount(); n != 1 {
		t.Errorf("Hold count = %d, want 1", n)
	}
	if len(s.Series) != 1 || s.Series[0].Acquisitions != 3 || s.Series[0].Dropped != 2 {
		t.Errorf("series %+v", s.Series)
	}
}

// TestMergeMergesHistograms checks that percentiles come from the merged
// histogram, never from averaged percentiles.
func TestMergeMergesHistograms(t *testing.T) {
	now := time.Now()
	fast, slow := NewRecorder(now), NewRecorder(now)
	for range 990 {
		fast.Acquired(now, 100*time.Microsecond, 100*time.Microsecond)
	}
	for range 10 {
		slow.Acquired(now, 10*time.Millisecond, 10*time.Millisecond)
	}
	lat := Quantiles(Merge([]*Recorder{fast, slow}, nil).Acquire)
	if lat.P50 != 100 {
		t.Errorf("P50 = %v µs, want 100 (an average of per-recorder medians would be ~5050)", lat.P50)
	}
	if lat.P999 < 9990 || lat.P999 > 10010 {
		t.Errorf("P99.9 = %v µs, want ~10000", lat.P999)
	}
	if wantMean := (990*100.0 + 10*10000.0) / 1000; math.Abs(lat.Mean-wantMean) > 1 {
		t.Errorf("Mean = %v µs, want %v", lat.Mean, wantMean)
	}
}

func TestFairness(t *testing.T) {
	tests := []struct {
		name      string
		perClient []int64
		want      measure.Fairness
	}{
		{"no clients", nil, measure.Fairness{}}, // Jain undefined: 0, as the record keeps it
		{"all zero", []int64{0, 0, 0}, measure.Fairness{Clients: 3}},
		{"all equal", []int64{7, 7, 7, 7}, measure.Fairness{Clients: 4, MinPerClient: 7, MaxPerClient: 7, Jain: 1}},
		{"one client got all", []int64{0, 0, 0, 12}, measure.Fairness{Clients: 4, MaxPerClient: 12, Jain: 0.25}},
		{"uneven", []int64{1, 3}, measure.Fairness{Clients: 2, MinPerClient: 1, MaxPerClient: 3, Jain: 16.0 / 20.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(nil, tt.perClient).Fairness
			if got.Clients != tt.want.Clients || got.MinPerClient != tt.want.MinPerClient ||
				got.MaxPerClient != tt.want.MaxPerClient || math.Abs(got.Jain-tt.want.Jain) > 1e-12 {
				t.Errorf("Fairness = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestQuantilesEmpty(t *testing.T) {
	if got := Quantiles(nil); got != (measure.Latency{}) {
		t.Errorf("Quantiles(nil) = %+v, want zero", got)
	}
	if got := Quantiles(newHistogram()); got != (measure.Latency{}) {
		t.Errorf("Quantiles(empty) = %+v, want zero", got)
	}
}

func TestEncodeDecodeHistogram(t *testing.T) {
	now := time.Now()
	r := NewRecorder(now)
	for i := range 10_000 {
		d := time.Duration(i*i) * time.Microsecond
		r.Acquired(now, d, d)
	}
	r.Acquired(now, 2*time.Hour, 2*time.Hour)
	h := Merge([]*Recorder{r}, nil).Acquire

	text, err := EncodeHistogram(h)
	if err != nil {
		t.Fatalf("EncodeHistogram: %v", err)
	}
	decoded, err := DecodeHistogram(text)
	if err != nil {
		t.Fatalf("DecodeHistogram: %v", err)
	}
	if !h.Equals(decoded) {
		t.Error("decoded histogram differs from the encoded one")
	}
	if Quantiles(decoded) != Quantiles(h) {
		t.Errorf("decoded quantiles %+v, want %+v", Quantiles(decoded), Quantiles(h))
	}
}

func TestEncodeDecodeHistogramErrors(t *testing.T) {
	if _, err := EncodeHistogram(nil); err == nil {
		t.Error("EncodeHistogram(nil): no error")
	}
	for _, bad := range []string{"", "not base64!", "AAAA"} {
		if _, err := DecodeHistogram(bad); err == nil {
			t.Errorf("DecodeHistogram(%q): no error", bad)
		}
	}
	// The cause is wrapped, not replaced.
	_, err := DecodeHistogram("not base64!")
	var corrupt base64.CorruptInputError
	if !errors.As(err, &corrupt) {
		t.Errorf("DecodeHistogram error %v does not wrap its base64 cause", err)
	}
}
