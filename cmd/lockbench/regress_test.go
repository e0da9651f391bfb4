package main

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/lockbench/lockbench/results"
)

// The committed baseline must load with this lockbench and be a run of the
// regression suite as it stands: after a schema or suite change, `make
// baseline` must be run again (or `make regress` would compare nothing, or
// the wrong thing).
func TestBaselineMatchesSuite(t *testing.T) {
	t.Chdir("../..")
	rec, err := results.Load("results/baselines/regress.json")
	if err != nil {
		t.Fatalf("%v (record it again: make baseline)", err)
	}
	args, err := withScenario([]string{"--scenario", "results/baselines/regress.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	_, p, _, err := parseRun(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p.Topology = rec.Config.Topology // the server it ran on is not the suite's
	want, _ := json.Marshal(p)
	got, _ := json.Marshal(rec.Config)
	if string(got) != string(want) {
		t.Errorf("baseline configuration differs from the suite's (record it again: make baseline):\nbaseline %s\nsuite    %s", got, want)
	}
	if rec.Interrupted || len(rec.Cells) != p.Repeat*len(p.Variants)*len(p.Clients) {
		t.Errorf("baseline has %d cells (interrupted %v), want %d", len(rec.Cells), rec.Interrupted, p.Repeat*len(p.Variants)*len(p.Clients))
	}
}
