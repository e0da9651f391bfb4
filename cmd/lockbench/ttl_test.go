package main

import (
	"cmp"
	"io"
	"testing"
	"time"

	"github.com/lockbench/lockbench/variants"
)

// The plan says whether --ttl was given (a scenario's ttl counts as
// given), so that the variants wrapping a lock library keep the library's
// own lease time when it was not.
func TestTTLGiven(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		wantTTL   time.Duration
		wantGiven bool
	}{
		{"default", nil, 10 * time.Second, false},
		{"flag", []string{"--ttl", "2s"}, 2 * time.Second, true},
		{"flag at the default", []string{"--ttl", "10s"}, 10 * time.Second, true},
		{"scenario", []string{"--scenario", "long-hold"}, 200 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, p, _, err := parseRun(tc.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			// A TTL not given is zero in the plan: each variant's default.
			ttl, given := cmp.Or(p.TTL, variants.DefaultTTL), p.TTL != 0
			if ttl != tc.wantTTL || given != tc.wantGiven {
				t.Errorf("TTL %v, given %v; want %v, %v", ttl, given, tc.wantTTL, tc.wantGiven)
			}
		})
	}
}
