package main

import (
	"encoding/json"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/lockbench/lockbench/compare"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
)

// The committed baseline must load with this lockbench and be a run of the
// regression suite as it stands: after a schema or suite change, `make
// baseline` must be run again (or `make regress` would compare nothing, or
// the wrong thing).
func TestBaselineMatchesSuite(t *testing.T) {
	t.Chdir("../..")
	rec, err := record.Load("results/baselines/regress.json")
	if err != nil {
		t.Fatalf("%v (record it again: make baseline)", err)
	}
	_, p, _, err := parseRun([]string{"--scenario", "results/baselines/regress.yaml"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// The server it ran on is not the suite's: take the record's.
	raw, _ := json.Marshal(rec.Config.Topology)
	p.Topology = topologies.Spec{}
	if err := json.Unmarshal(raw, &p.Topology); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(p)
	got, _ := json.Marshal(rec.Config)
	if string(got) != string(want) {
		t.Errorf("baseline configuration differs from the suite's (record it again: make baseline):\nbaseline %s\nsuite    %s", got, want)
	}
	if rec.Interrupted || len(rec.Cells) != p.Repeat*len(p.Variants)*len(p.Clients) {
		t.Errorf("baseline has %d cells (interrupted %v), want %d", len(rec.Cells), rec.Interrupted, p.Repeat*len(p.Variants)*len(p.Clients))
	}
}

// The GitHub Actions recipe in docs/ci.md parses, points lockbench at its
// service container, and uses rules compare accepts.
func TestCIRecipe(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(string(doc), "```yaml\n")
	block, _, closed := strings.Cut(rest, "```")
	if !found || !closed {
		t.Fatal("docs/ci.md has no ```yaml block")
	}
	var workflow struct {
		Jobs map[string]struct {
			Services map[string]struct {
				Image string   `yaml:"image"`
				Ports []string `yaml:"ports"`
			} `yaml:"services"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(block), &workflow); err != nil {
		t.Fatalf("the workflow does not parse: %v", err)
	}
	for _, name := range []string{"regress", "against-base", "baseline"} {
		job, ok := workflow.Jobs[name]
		if !ok {
			t.Errorf("no job %q", name)
			continue
		}
		if redis := job.Services["redis"]; !strings.HasPrefix(redis.Image, "redis:") || !slices.Contains(redis.Ports, "6379:6379") {
			t.Errorf("%s: redis service %+v, want a redis image on port 6379", name, redis)
		}
		var runs strings.Builder
		for _, s := range job.Steps {
			runs.WriteString(s.Run + "\n")
		}
		if !strings.Contains(runs.String(), "--target redis://127.0.0.1:6379") {
			t.Errorf("%s: no step targets the service container:\n%s", name, runs.String())
		}
		for _, m := range regexp.MustCompile(`--fail-on '([^']+)'`).FindAllStringSubmatch(runs.String(), -1) {
			if _, err := compare.ParseRule(m[1]); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nregress: build", "\nbaseline: build", "REGRESS_ARGS"} {
		if !strings.Contains(string(makefile), want) {
			t.Errorf("Makefile lacks %q, which docs/ci.md uses", want)
		}
	}
	for _, m := range regexp.MustCompile(`--fail-on '([^']+)'`).FindAllStringSubmatch(string(makefile), -1) {
		if _, err := compare.ParseRule(m[1]); err != nil {
			t.Errorf("Makefile REGRESS_FAIL_ON: %v", err)
		}
	}
}
