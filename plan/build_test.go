package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/workloads"
)

func scenario(t *testing.T, name string) *Scenario {
	t.Helper()
	s, err := LookupScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// Without a scenario or overrides, a plan has the defaults; a TTL not
// given stays zero, each variant's own.
func TestBuildDefaults(t *testing.T) {
	p, err := Build(nil, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	if !slices.Equal(p.Variants, DefaultVariants) || !slices.Equal(p.Clients, DefaultClients) || p.Client != DefaultClient ||
		w.Keys != DefaultKeys || w.Hold.String() != DefaultHold || !w.Think.IsZero() || w.Duration != DefaultDuration ||
		w.Warmup != DefaultWarmup || p.TTL != 0 || p.AcquireTimeout != DefaultAcquireTimeout || p.Limit != DefaultLimit ||
		p.Repeat != DefaultRepeat || p.Fence != DefaultFence || !w.Clocks.IsZero() || p.Faults != nil || p.Scenario != "" {
		t.Errorf("plan without settings: %+v", p)
	}
	if p.Topology.Name != "local:single" && p.Topology.Name != "embedded" {
		t.Errorf("topology %q; want local:single (embedded without redis-server)", p.Topology.Name)
	}
	p.Variants[0] = "changed"
	if DefaultVariants[0] == "changed" {
		t.Error("the plan shares its variants with the defaults")
	}
}

// An override replaces the scenario's setting, a list as a whole; what is
// not given stays the scenario's.
func TestBuildOverridesReplace(t *testing.T) {
	s := scenario(t, "holder-crash") // 7 variants, 4 clients, ttl 500ms, one fault
	alone, err := Build(s, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if alone.Scenario != "holder-crash" || alone.TTL != 500*time.Millisecond || len(alone.Variants) != 7 || len(alone.Faults) != 1 {
		t.Fatalf("the scenario's plan: %+v", alone)
	}
	p, err := Build(s, Overrides{
		Variants: []string{"simple"}, Clients: []int{2, 3}, TTL: new(2 * time.Second), Hold: new("3ms"),
		Faults: []string{"at=1s holder-pause for=100ms", "at=2s holder-crash"}, ClockJumps: []string{"+1s@1s"},
	})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(fs []faults.Fault) (out []string) {
		for _, f := range fs {
			out = append(out, f.String())
		}
		return out
	}
	if !slices.Equal(p.Variants, []string{"simple"}) || !slices.Equal(p.Clients, []int{2, 3}) || p.TTL != 2*time.Second ||
		p.Workload.Hold != workloads.Fixed(3*time.Millisecond) || len(p.Workload.Clocks.Jumps) != 1 ||
		!slices.Equal(kinds(p.Faults), []string{"at=1s holder-pause for=100ms", "at=2s holder-crash"}) {
		t.Errorf("overridden plan: %+v", p)
	}
	if p.AcquireTimeout != alone.AcquireTimeout || p.Workload.Duration != alone.Workload.Duration || p.Scenario != alone.Scenario {
		t.Errorf("the settings not given changed: %+v, was %+v", p, alone)
	}
	if len(s.Variants) != 7 || len(s.Faults) != 1 {
		t.Errorf("Build changed the scenario: %+v", s)
	}
	// Given empty is given: no variant at all.
	if _, err := Build(s, Overrides{Variants: []string{}}); err == nil || !strings.HasPrefix(err.Error(), "--variants: give at least one") {
		t.Errorf("empty --variants: %v", err)
	}
}

// built builds s with o and fails t unless Build's error starts with
// wantErr ("": no error); ok says the plan is one to check further.
func built(t *testing.T, s *Scenario, o Overrides, wantErr string) (p Plan, ok bool) {
	t.Helper()
	p, err := Build(s, o)
	switch {
	case wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), wantErr)):
		t.Errorf("error %v; want %q...", err, wantErr)
	case wantErr == "" && err != nil:
		t.Errorf("error %v", err)
	default:
		return p, wantErr == ""
	}
	return p, false
}

// The duration follows --ops and --stages unless given: a scenario's
// duration stays with --ops, and --stages replace it.
func TestBuildDuration(t *testing.T) {
	for _, tc := range []struct {
		name     string
		s        *Scenario
		o        Overrides
		duration time.Duration
		err      string
	}{
		{"ops alone", nil, Overrides{Ops: 100}, 0, ""},
		{"ops and duration", nil, Overrides{Ops: 100, Duration: new(time.Second)}, time.Second, ""},
		{"ops in a scenario", scenario(t, "ticket-sale"), Overrides{Ops: 100}, 3 * time.Second, ""},
		{"stages replace a scenario's", scenario(t, "ticket-sale"), Overrides{Stages: "1s:100,2s:200"}, 3 * time.Second, ""},
		{"stages and duration", nil, Overrides{Stages: "1s:100", Duration: new(time.Second)}, 0, "--duration: --stages set"},
		{"stages and ops", nil, Overrides{Stages: "1s:100", Ops: 5}, 0, "--ops: an open loop"},
		{"no duration", nil, Overrides{Duration: new(time.Duration(0))}, 0, "--duration: must be a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p, ok := built(t, tc.s, tc.o, tc.err); ok && p.Workload.Duration != tc.duration {
				t.Errorf("duration %v; want %v", p.Workload.Duration, tc.duration)
			}
		})
	}
}

// A bad setting is one error naming its flag, and the scenario when the
// value is the scenario's own.
func TestBuildErrors(t *testing.T) {
	bad := &Scenario{Name: "bad", Path: "dir/bad.yaml", Duration: "ten", Keys: -1}
	for _, tc := range []struct {
		name             string
		s                *Scenario
		o                Overrides
		flag, scenario   string
		message, wrapped string
	}{
		{"scenario duration", bad, Overrides{}, "--duration", "dir/bad.yaml", `--scenario dir/bad.yaml: --duration: "ten" is not a duration`, ""},
		{"overridden away", bad, Overrides{Duration: new(time.Second)}, "--keys", "dir/bad.yaml", "--scenario dir/bad.yaml: --keys: must be at least 1 (got -1)", ""},
		{"override", scenario(t, "long-hold"), Overrides{TTL: new(time.Duration(0))}, "--ttl", "", "--ttl: must be a positive duration", ""},
		{"scenario fault", &Scenario{Name: "f", Faults: []string{"at=1s explode"}}, Overrides{}, "--fault", "f", "--scenario f: --fault: ", "explode"},
		{"scenario limit, given lock", scenario(t, "client-skew"), Overrides{Variants: []string{"lua-release"}}, "--limit", "client-skew",
			"--scenario client-skew: --limit: limit 5 needs a semaphore", ""},
		{"scenario fault beyond the duration given", scenario(t, "holder-crash"), Overrides{Duration: new(300 * time.Millisecond)}, "--fault", "holder-crash",
			"--scenario holder-crash: --fault: ", "not within the measured 300ms"},
		{"client", nil, Overrides{Variants: []string{"redislock"}}, "--client", "", "--client: redislock does not run on rueidis", ""},
		{"unknown variant", scenario(t, "ticket-sale"), Overrides{Variants: []string{"luarelease"}}, "--variants", "", `--variants: unknown variant "luarelease"`, ""},
		{"scenario topology", &Scenario{Name: "t", Topology: "local:mesh"}, Overrides{}, "--topology", "t", "--scenario t: --topology: ", "local:mesh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.s, tc.o)
			var se *SettingError
			if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v; want a SettingError wrapping ErrInvalid", err)
			}
			if se.Flag != tc.flag || se.Scenario != tc.scenario {
				t.Errorf("error %q: flag %q scenario %q; want %q %q", err, se.Flag, se.Scenario, tc.flag, tc.scenario)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, tc.message) || !strings.Contains(msg, tc.wrapped) || strings.Contains(msg, "\n") {
				t.Errorf("error %q; want one line starting %q and saying %q", msg, tc.message, tc.wrapped)
			}
		})
	}
}

func ExampleBuild() {
	s, _ := LookupScenario("last-permit-race")
	p, err := Build(&s, Overrides{Clients: []int{24}, TTL: new(2 * time.Second)})
	fmt.Println(p.Variants, p.Clients, p.Limit, p.TTL, err)
	// Output: [sem-fair sem-locked] [24] 5 2s <nil>
}

// --pacing reaches the workload for an open loop, and is refused, naming
// the flag, with a value it does not know or without an open loop.
func TestBuildPacing(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Overrides
		want string // the workload's pacing
		err  string
	}{
		{"default", Overrides{Rate: "5000"}, "", ""},
		{"spin", Overrides{Rate: "5000", Pacing: "spin"}, "spin", ""},
		{"sleep with stages", Overrides{Stages: "1s:100", Pacing: "sleep"}, "sleep", ""},
		{"unknown", Overrides{Rate: "5000", Pacing: "busy"}, "", `--pacing: "busy" is not a pacing (sleep or spin)`},
		{"closed loop", Overrides{Pacing: "spin"}, "", "--pacing: paces an open loop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p, ok := built(t, nil, tc.o, tc.err); ok && p.Workload.Pacing != tc.want {
				t.Errorf("pacing %q; want %q", p.Workload.Pacing, tc.want)
			}
		})
	}
}
