package main

import (
	"encoding/json"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// A flag given with --scenario replaces the scenario's setting, a list as
// a whole, and leaves the rest of the scenario's plan as it is: the plan
// is the scenario's alone with exactly the flag's value.
func TestFlagsReplaceScenario(t *testing.T) {
	fault := func(spec string) faults.Fault {
		f, err := faults.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	jump := func(spec string) workloads.Jump {
		j, err := workloads.ParseJump(spec)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	for _, tc := range []struct {
		name, scenario string
		flags          []string
		want           func(p *plan.Plan) // the scenario's plan, given the flags
	}{
		{"variants", "holder-crash", []string{"--variants", "simple"},
			func(p *plan.Plan) { p.Variants = []string{"simple"} }},
		{"variants list", "long-hold", []string{"--variants", "watchdog,lua-release"},
			func(p *plan.Plan) { p.Variants = []string{"watchdog", "lua-release"} }},
		{"clients", "last-permit-race", []string{"--clients", "24"},
			func(p *plan.Plan) { p.Clients = []int{24} }},
		{"clients list", "ticket-sale", []string{"--clients", "2,4"},
			func(p *plan.Plan) { p.Clients = []int{2, 4} }},
		{"fault", "redlock-restart", []string{"--fault", "at=1s restart node=node-1 delay=2s"},
			func(p *plan.Plan) { p.Faults = []faults.Fault{fault("at=1s restart node=node-1 delay=2s")} }},
		{"faults", "redlock-minority", []string{"--fault", "at=1s kill node=node-3", "--fault", "at=2s pause node=node-4 for=1s"},
			func(p *plan.Plan) {
				p.Faults = []faults.Fault{fault("at=1s kill node=node-3"), fault("at=2s pause node=node-4 for=1s")}
			}},
		{"clock-jump", "clock-jump", []string{"--clock-jump", "-5s@1s"},
			func(p *plan.Plan) { p.Workload.Clocks.Jumps = []workloads.Jump{jump("-5s@1s")} }},
		{"ttl", "long-hold", []string{"--ttl", "5s"},
			func(p *plan.Plan) { p.TTL = 5 * time.Second }},
		{"hold", "long-hold", []string{"--hold", "2ms"},
			func(p *plan.Plan) { p.Workload.Hold = workloads.Fixed(2 * time.Millisecond) }},
		{"warmup at zero", "baseline", []string{"--warmup", "0"},
			func(p *plan.Plan) { p.Workload.Warmup = 0 }},
		{"topology", "redlock-majority", []string{"--topology", "local:redlock?nodes=7"},
			func(p *plan.Plan) { p.Topology = topologies.Spec{Name: "local:redlock?nodes=7"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, alone, _, err := parseRun([]string{"--scenario", tc.scenario}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			_, got, _, err := parseRun(append([]string{"--scenario", tc.scenario}, tc.flags...), io.Discard)
			if err != nil {
				t.Fatalf("%v: %v", tc.flags, err)
			}
			want := alone
			tc.want(&want)
			if g, w := planJSON(t, got), planJSON(t, want); g != w {
				t.Errorf("--scenario %s %q:\ngot  %s\nwant %s", tc.scenario, tc.flags, g, w)
			}
		})
	}
}

// --check is run's own: with a scenario, the checks are exactly those
// given.
func TestChecksWithScenario(t *testing.T) {
	checks := []string{"overlaps==0", "acquire.p99<5ms"}
	o, _, _, err := parseRun([]string{"--scenario", "ticket-sale", "--check", checks[0], "--check", checks[1]}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range o.thresholds {
		got = append(got, th.Text)
	}
	if !slices.Equal(got, checks) {
		t.Errorf("checks %q; want %q", got, checks)
	}
}

func planJSON(t *testing.T, p plan.Plan) string {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
