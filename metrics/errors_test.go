package metrics

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lockbench/lockbench/measure"
)

// Errors are counted by kind, each with the message of its first; the
// kinds of several recorders add up in the summary, which keeps the first
// recorder's sample.
func TestRecorderCountsErrorsByKind(t *testing.T) {
	start := time.Now()
	a, b := NewRecorder(start), NewRecorder(start)
	a.Failed(start, ClientError{Kind: "OOM", Message: "OOM first", Err: errors.New("wrapped: OOM first")})
	a.Failed(start, ClientError{Kind: "OOM", Message: "OOM second"})
	a.Failed(start.Add(time.Second), ClientError{Kind: "timeout", Err: errors.New("i/o timeout")})
	b.Failed(start, ClientError{Kind: "OOM", Message: "OOM from b"})
	b.Failed(start, ClientError{Err: errors.New("odd")})
	s := Merge([]*Recorder{a, b}, nil)
	want := map[string]measure.ErrorCount{
		"OOM": {Count: 3, Sample: "OOM first"}, "timeout": {Count: 1, Sample: "i/o timeout"}, "other": {Count: 1, Sample: "odd"},
	}
	if fmt.Sprint(s.ErrorsByKind) != fmt.Sprint(want) {
		t.Errorf("ErrorsByKind = %v, want %v", s.ErrorsByKind, want)
	}
	if s.Errors != 5 || len(s.Series) != 2 || s.Series[0].Errors != 4 || s.Series[1].Errors != 1 {
		t.Errorf("errors %d, series %+v; want 5, 4 then 1", s.Errors, s.Series)
	}
}

// A recorder tells maxErrorKinds−1 kinds apart and counts the rest
// together: no error is dropped, and memory stays bounded.
func TestRecorderErrorKindsOverflow(t *testing.T) {
	r := NewRecorder(time.Now())
	for i := range maxErrorKinds + 4 {
		r.Failed(time.Now(), ClientError{Kind: fmt.Sprintf("KIND%d", i), Message: "m"})
	}
	s := Merge([]*Recorder{r}, nil)
	var total int64
	for _, c := range s.ErrorsByKind {
		total += c.Count
	}
	if len(s.ErrorsByKind) != maxErrorKinds || s.ErrorsByKind[ErrorOverflow].Count != 5 || total != maxErrorKinds+4 {
		t.Errorf("ErrorsByKind = %v; want %d kinds, 5 counted as %q, all %d counted", s.ErrorsByKind, maxErrorKinds, ErrorOverflow, maxErrorKinds+4)
	}
}

// After the first error of a kind, counting another allocates nothing.
func TestFailedDoesNotAllocate(t *testing.T) {
	start := time.Now()
	r := NewRecorder(start)
	err := errors.New("dial tcp: connection refused")
	r.Failed(start, ClientError{Kind: "connection refused", Err: err})
	r.Failed(start, ClientError{Kind: "OOM", Message: "OOM command not allowed"})
	allocs := testing.AllocsPerRun(1000, func() {
		r.Failed(start, ClientError{Kind: "connection refused", Err: err})
		r.Failed(start, ClientError{Kind: "OOM", Message: "OOM command not allowed"})
	})
	if allocs != 0 {
		t.Errorf("counting an error allocates %.1f times", allocs)
	}
}

// Jain's index of no acquisitions is undefined.
func TestFairnessDefined(t *testing.T) {
	for _, tt := range []struct {
		perClient []int64
		defined   bool
	}{{nil, false}, {[]int64{0, 0}, false}, {[]int64{0, 3}, true}, {[]int64{2, 2}, true}} {
		if got := measure.FairnessOf(tt.perClient).Defined(); got != tt.defined {
			t.Errorf("FairnessOf(%v).Defined() = %v, want %v", tt.perClient, got, tt.defined)
		}
	}
}
