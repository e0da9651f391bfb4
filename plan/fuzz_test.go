package plan

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// scenarioFlags are the run flags Scenario.Args may set.
var scenarioFlags = map[string]bool{
	"--variants": true, "--topology": true, "--clients": true, "--keys": true, "--limit": true,
	"--repeat": true, "--ttl": true, "--hold": true, "--think": true, "--duration": true,
	"--warmup": true, "--acquire-timeout": true, "--retry": true, "--clock-skew": true,
	"--clock-jump": true, "--fault": true, "--fence": true,
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
// ErrBadScenario or gives a named scenario whose Args are well formed and
// which survives writing back to YAML. Seeds: the README's example, the
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

		args := s.Args()
		if len(args)%2 != 0 {
			t.Fatalf("Args %q: not flag-value pairs", args)
		}
		count := map[string]int{}
		for i := 0; i < len(args); i += 2 {
			flag, value := args[i], args[i+1]
			if !scenarioFlags[flag] {
				t.Fatalf("Args %q: unknown flag %q", args, flag)
			}
			if value == "" {
				t.Fatalf("Args %q: %s without a value", args, flag)
			}
			count[flag]++
		}
		for flag, n := range count {
			if n > 1 && flag != "--fault" && flag != "--clock-jump" {
				t.Errorf("Args %q: %s given %d times", args, flag, n)
			}
		}
		if want := nonEmpty(s.Faults); count["--fault"] != want {
			t.Errorf("Args %q: %d --fault for %d faults", args, count["--fault"], want)
		}
		if want := nonEmpty(s.ClockJumps); count["--clock-jump"] != want {
			t.Errorf("Args %q: %d --clock-jump for %d jumps", args, count["--clock-jump"], want)
		}

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
		if a, b := strings.Join(args, "\x00"), strings.Join(again.Args(), "\x00"); a != b {
			t.Fatalf("Args change when written back: %q, then %q", args, again.Args())
		}
	})
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
