package soak_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/soak"
)

// A sample is one aligned line; the summary says flat with each figure's
// limit: goroutines +5, heap +50 % +8 MiB, resident memory 2x +32 MiB.
func TestLines(t *testing.T) {
	s := soak.Sample{Elapsed: 61 * time.Second, RSSMiB: 92.4, HeapMiB: 1.4, Goroutines: 5, Runs: 4, Acquisitions: 16966}
	want := "soak  1m01s  rss    92.4 MiB  heap    1.4 MiB  goroutines    5  runs     4  acquisitions      16966  errors 0"
	if got := s.String(); got != want {
		t.Errorf("sample:\n%s\nwant:\n%s", got, want)
	}
	sum := soak.Summary{First: s, Last: s}
	want = "soak  flat: goroutines 5 -> 5 (limit 10), heap 1.4 -> 1.4 MiB (limit 10.1), rss 92.4 -> 92.4 MiB (limit 216.8)"
	if got := sum.String(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	if err := soak.Judge(s, s); err != nil {
		t.Errorf("Judge of one sample twice: %v", err)
	}
	s.Goroutines = 11
	if err := soak.Judge(sum.First, s); !errors.Is(err, soak.ErrNotFlat) {
		t.Errorf("Judge of 5 then 11 goroutines: %v, want ErrNotFlat", err)
	}
}

// Bad options are refused before anything starts, naming the flag.
func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		o    soak.Options
		flag string
	}{
		{soak.Options{Interval: time.Second}, "--duration"},
		{soak.Options{Duration: time.Second, Interval: -time.Second}, "--interval"},
		{soak.Options{Duration: time.Second, Interval: time.Second, Targets: []string{"http://nowhere"}}, "--target"},
	} {
		_, err := soak.Run(t.Context(), tc.o)
		if !errors.Is(err, soak.ErrBadOptions) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%+v: %v; want ErrBadOptions naming %s", tc.o, err, tc.flag)
		}
	}
}
