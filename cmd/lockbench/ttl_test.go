package main

import (
	"io"
	"testing"
	"time"
)

// The plan says whether --ttl was given (a scenario's ttl is given as
// --ttl), so that the variants wrapping a lock library keep the library's
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
			args, err := withScenario(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			_, p, _, err := parseRun(args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if p.TTL != tc.wantTTL || p.TTLGiven != tc.wantGiven {
				t.Errorf("TTL %v, TTLGiven %v; want %v, %v", p.TTL, p.TTLGiven, tc.wantTTL, tc.wantGiven)
			}
		})
	}
}
