package faults

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Fault
	}{
		{"at=5s pause node=master for=3s", Fault{At: 5 * time.Second, Kind: Pause, Node: "master", For: 3 * time.Second}},
		{"kill node=node-1 at=0s", Fault{Kind: Kill, Node: "node-1"}},
		{"at=2s restart node=node-2 delay=1s", Fault{At: 2 * time.Second, Kind: Restart, Node: "node-2", Delay: time.Second}},
		{"at=3s failover node=replica-1", Fault{At: 3 * time.Second, Kind: Failover, Node: "replica-1"}},
		{"at=1s pause node=master", Fault{At: time.Second, Kind: Pause, Node: "master"}},
		{"at=1s holder-pause for=2s", Fault{At: time.Second, Kind: HolderPause, For: 2 * time.Second}},
		{"at=1s holder-crash", Fault{At: time.Second, Kind: HolderCrash}},
		{"at=1s latency node=master latency=20ms jitter=5ms for=2s", Fault{At: time.Second, Kind: Latency, Node: "master", Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, For: 2 * time.Second}},
		{"at=1s partition node=node-1", Fault{At: time.Second, Kind: Partition, Node: "node-1"}},
		{"at=1s reset node=master for=1s", Fault{At: time.Second, Kind: Reset, Node: "master", For: time.Second, Fraction: 1}},
		{"at=1s reset sides=master|replicas fraction=0.3", Fault{At: time.Second, Kind: Reset, Sides: "master|replicas", Fraction: 0.3}},
		{"at=1s clock node=node-3 jump=+30s", Fault{At: time.Second, Kind: Clock, Node: "node-3", Jump: 30 * time.Second}},
		{"at=2s script-flush node=master", Fault{At: 2 * time.Second, Kind: ScriptFlush, Node: "master"}},
		{"clock jump=-10s node=master at=0s", Fault{Kind: Clock, Node: "master", Jump: -10 * time.Second}},
		{"at=2s clock node=node-1 jump=1m500ms", Fault{At: 2 * time.Second, Kind: Clock, Node: "node-1", Jump: time.Minute + 500*time.Millisecond}},
		{"at=0s step-delay step=between-get-and-del delay=300ms fraction=0.5", Fault{Kind: StepDelay, Step: "between-get-and-del", Delay: 300 * time.Millisecond, Fraction: 0.5}},
		{"at=0s step-crash step=after-setnx count=1", Fault{Kind: StepCrash, Step: "after-setnx", Fraction: 1, Count: 1}},
	} {
		got, err := Parse(tc.spec)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.spec, got, err, tc.want)
			continue
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("%q does not round-trip: %q → %+v, %v", tc.spec, got.String(), again, err)
		}
	}
	for spec, why := range map[string]string{
		"":                                   "no kind",
		"at=1s explode node=master":          "unknown kind",
		"at=1s pause kill node=master":       "two kinds",
		"pause node=master":                  "no at=",
		"at=1s pause":                        "no node=",
		"at=1s pause node=":                  "needs a node name",
		"at=-1s pause node=master":           "not a duration",
		"at=1s pause node=master for=0s":     "not a duration",
		"at=1s kill node=master for=1s":      "for= goes with pause",
		"at=1s kill node=master delay=1s":    "delay= goes with restart",
		"at=1s kill node=master at=2s":       "given twice",
		"at=1s kill node=master color=red":   "unknown field",
		"at=1s holder-pause":                 "needs for=",
		"at=1s holder-crash node=master":     "node= goes with node and network faults",
		"at=1s step-crash":                   "step= goes with",
		"at=1s step-delay step=after-setnx":  "needs delay=",
		"at=1s step-crash step=x fraction=2": "not in (0, 1]",
		"at=1s step-crash step=x count=0":    "whole number",
		"at=1s kill node=master count=2":     "count= goes with step faults",
		"at=1s kill node=master fraction=.5": "fraction= goes with step faults and reset",
		"at=1s reset node=master fraction=0": "not in (0, 1]",
		"at=1s reset node=master count=1":    "count= goes with step faults",
		"at=1s clock node=node-1":            "clock needs jump=",
		"at=1s clock jump=+30s":              "no node=",
		"at=1s clock node=node-1 jump=0s":    "not a duration other than 0",
		"at=1s clock node=node-1 jump=soon":  "not a duration other than 0",
		"at=1s clock node=x jump=+900000h":   "within 100 years",
		"at=1s clock node=x jump=1s for=1s":  "for= goes with pause",
		"at=1s kill node=master jump=+30s":   "jump= goes with clock",
		"at=1s holder-crash jump=-1s":        "jump= goes with clock",
	} {
		_, err := Parse(spec)
		if !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "examples") {
			t.Errorf("Parse(%q) = %v; want ErrBadFault saying %q with examples", spec, err, why)
		}
	}
}

func TestSignedDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{30 * time.Second: "+30s", -10 * time.Second: "-10s", 0: "0s", 1500 * time.Millisecond: "+1.5s"} {
		if got := SignedDuration(d); got != want {
			t.Errorf("SignedDuration(%v) = %q; want %q", d, got, want)
		}
	}
	if !Clock.OnNode() || !Clock.NamesNode() || Clock.OnNetwork() {
		t.Errorf("a clock fault is a node fault: OnNode %v, NamesNode %v, OnNetwork %v", Clock.OnNode(), Clock.NamesNode(), Clock.OnNetwork())
	}
}

func TestCheck(t *testing.T) {
	fs := []Fault{{At: time.Second, Kind: Kill, Node: "node-1"}}
	if err := Check(fs, 2*time.Second, []string{"node-1", "node-2"}); err != nil {
		t.Errorf("a good fault: %v", err)
	}
	if err := Check(fs, time.Second, nil); !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), "within the measured") {
		t.Errorf("a fault at the end: %v", err)
	}
	if err := Check(fs, 0, []string{"master"}); !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), "nodes: master") {
		t.Errorf("an unknown node: %v", err)
	}
}
