package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// scenarioFlags are the run flags of the settings a scenario has, by
// whether the scenario s sets it.
var scenarioFlags = map[string]func(s Scenario) bool{
	"--variants":        func(s Scenario) bool { return len(s.Variants) > 0 },
	"--topology":        func(s Scenario) bool { return s.Topology != "" },
	"--clients":         func(s Scenario) bool { return len(s.Clients) > 0 },
	"--keys":            func(s Scenario) bool { return s.Keys != 0 },
	"--limit":           func(s Scenario) bool { return s.Limit != 0 },
	"--repeat":          func(s Scenario) bool { return s.Repeat != 0 },
	"--ttl":             func(s Scenario) bool { return s.TTL != "" },
	"--hold":            func(s Scenario) bool { return s.Hold != "" },
	"--think":           func(s Scenario) bool { return s.Think != "" },
	"--duration":        func(s Scenario) bool { return s.Duration != "" },
	"--warmup":          func(s Scenario) bool { return s.Warmup != "" },
	"--acquire-timeout": func(s Scenario) bool { return s.AcquireTimeout != "" },
	"--retry":           func(s Scenario) bool { return s.Retry != "" },
	"--clock-skew":      func(s Scenario) bool { return s.ClockSkew != "" },
	"--clock-jump":      func(s Scenario) bool { return nonEmpty(s.ClockJumps) > 0 },
	"--fault":           func(s Scenario) bool { return nonEmpty(s.Faults) > 0 },
	"--fence":           func(s Scenario) bool { return s.Fence != "" },
	// Not a scenario's: the default client may not run its variants.
	"--client": func(Scenario) bool { return false },
}

// loadScenarioBytes writes data to a file of its own and loads it: the
// parser reads files only.
func loadScenarioBytes(t *testing.T, data []byte) (Scenario, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return LoadScenario(path)
}

// FuzzLoadScenario checks that a scenario file either fails with
// ErrBadScenario or gives a named scenario that Build turns into a plan of
// its settings (or one error naming the flag of a bad one), and which
// survives writing back to YAML, plan included. Seeds: the README's example, the
// regression suite, every built-in scenario, and
// testdata/fuzz/FuzzLoadScenario/.
func FuzzLoadScenario(f *testing.F) {
	for _, s := range []string{
		"name: my-long-hold\ntests: the work outlasts the TTL\nsource: my own\npredicts: set-nx-ex overlaps\n" +
			"variants: [set-nx-ex, watchdog]\ntopology: local\nclients: [8]\nkeys: 1\nttl: 200ms\nhold: 400ms\n" +
			"duration: 3s\nfaults: [\"at=1s holder-pause for=500ms\"]\n",
		"name: regress\nvariants: [set-nx-ex, lua-release, watchdog]\nclients: [8]\nkeys: 1\nhold: 1ms\n" +
			"duration: 2s\nwarmup: 500ms\nrepeat: 6\n",
		"name: x\nexpect: {none: [overlaps>0], lua-release: [overlaps=0]}\nclock_jumps: [+2s@5s]\nfence: reject\n",
		"", "name: \"\"\n", "name: x\ncolour: red\n", "name: x\nclients: [eight]\n", "- a\n- b\n", "name: [\n",
		"a: &a [*a, *a]\nname: x\n",
	} {
		f.Add([]byte(s))
	}
	for _, s := range Scenarios {
		data, err := yaml.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := loadScenarioBytes(t, data)
		if err != nil {
			if !errors.Is(err, ErrBadScenario) {
				t.Errorf("error %v does not wrap ErrBadScenario", err)
			}
			// yaml's own TypeError lists one problem a line; the command
			// line joins the lines (cmd/lockbench exitStatus). Any other
			// error must be one line.
			var typeErr *yaml.TypeError
			if msg := err.Error(); strings.Contains(msg, "\n") && !errors.As(err, &typeErr) {
				t.Errorf("error message is not one line: %q", msg)
			}
			return
		}
		if s.Name == "" {
			t.Fatalf("a scenario without a name: %+v", s)
		}

		p, buildErr := Build(&s, Overrides{})
		checkBuilt(t, s, p, buildErr)

		// What parsed writes back to YAML that loads to the same scenario.
		out, err := yaml.Marshal(s)
		if err != nil {
			t.Fatalf("marshal %+v: %v", s, err)
		}
		again, err := loadScenarioBytes(t, out)
		if err != nil {
			t.Fatalf("the scenario written back does not load: %v\n%s", err, out)
		}
		out2, err := yaml.Marshal(again)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("the scenario changes when written back and loaded (%v):\n%s\nthen\n%s", err, out, out2)
		}
		again.Path = s.Path // the same scenario, read from another file
		p2, err2 := Build(&again, Overrides{})
		if a, b := planOrError(t, p, buildErr), planOrError(t, p2, err2); a != b {
			t.Fatalf("the plan changes when written back: %s, then %s", a, b)
		}
	})
}

// checkBuilt checks what Build made of the scenario s: a plan whose lists
// are the scenario's whole, or one line naming a run flag, and the
// scenario when the setting is its own.
func checkBuilt(t *testing.T, s Scenario, p Plan, err error) {
	t.Helper()
	if err != nil {
		var bad *SettingError
		if !errors.As(err, &bad) || !errors.Is(err, ErrInvalid) {
			t.Fatalf("Build error %v is not a SettingError wrapping ErrInvalid", err)
		}
		setByScenario, known := scenarioFlags[bad.Flag]
		if !known {
			t.Fatalf("Build error %q: unknown flag %q", err, bad.Flag)
		}
		if want := ""; setByScenario(s) {
			if want = s.Ref(); bad.Scenario != want {
				t.Errorf("Build error %q of the scenario's own %s does not name it", err, bad.Flag)
			}
		} else if bad.Scenario != want {
			t.Errorf("Build error %q names the scenario for a %s it does not set", err, bad.Flag)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") {
			t.Errorf("Build error is not one line: %q", msg)
		}
		return
	}
	if p.Scenario != s.Ref() {
		t.Errorf("plan scenario %q, want %q", p.Scenario, s.Ref())
	}
	if len(s.Variants) > 0 && !slices.Equal(p.Variants, s.Variants) {
		t.Errorf("plan variants %q for the scenario's %q", p.Variants, s.Variants)
	}
	if len(s.Clients) > 0 && !slices.Equal(p.Clients, s.Clients) {
		t.Errorf("plan clients %v for the scenario's %v", p.Clients, s.Clients)
	}
	if want := nonEmpty(s.Faults); len(p.Faults) != want {
		t.Errorf("%d faults in the plan for %d in the scenario", len(p.Faults), want)
	}
	if want := nonEmpty(s.ClockJumps); len(p.Workload.Clocks.Jumps) != want {
		t.Errorf("%d clock jumps in the plan for %d in the scenario", len(p.Workload.Clocks.Jumps), want)
	}
}

// planOrError is the plan as JSON, or the error.
func planOrError(t *testing.T, p Plan, err error) string {
	t.Helper()
	if err != nil {
		return "error " + err.Error()
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func nonEmpty(values []string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
}
