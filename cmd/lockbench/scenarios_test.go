package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
)

// Every built-in scenario makes a valid plan.
func TestScenariosParse(t *testing.T) {
	for _, s := range plan.Scenarios {
		if s.Tests == "" || s.Source == "" || s.Predicts == "" || len(s.Variants) == 0 {
			t.Errorf("%s: tests, source, predicts and variants must all be said", s.Name)
		}
		if _, p, _, err := parseRun([]string{"--scenario", s.Name}, io.Discard); err != nil || p.Scenario != s.Name {
			t.Errorf("%s: %v (plan scenario %q)", s.Name, err, p.Scenario)
		}
	}
}

// A scenario file works like a named scenario, flags given override it,
// and unknown fields are refused.
func TestScenarioFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(good, []byte("name: mine\nvariants: [lua-release]\nclients: [3]\nttl: 2s\nfaults: ['at=100ms holder-crash']\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, p, _, err := parseRun([]string{"--scenario", good, "--ttl", "5s"}, io.Discard)
	if err != nil || p.Clients[0] != 3 || p.TTL.String() != "5s" || len(p.Faults) != 1 {
		t.Errorf("plan %+v, %v; want 3 clients, the flag's 5s TTL, one fault", p, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nvariantz: [x]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, status := runCLI(t, "run", "--scenario", bad)
	if status != exitUsage || !strings.Contains(stderr, "--scenario") || !strings.Contains(stderr, "variantz") {
		t.Errorf("unknown field: status %d, %q", status, stderr)
	}
}

// ticket-sale: without a lock tickets are oversold, with one none are.
func TestTicketSaleScenario(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	if _, stderr, status := runCLI(t, "run", "--scenario", "ticket-sale", "--duration", "500ms", "--out", out); status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	rec, err := record.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rec.Cells {
		oversold := c.Violations.LostUpdates
		if (c.Variant == "none") != (oversold > 0) {
			t.Errorf("%s: %d tickets oversold", c.Variant, oversold)
		}
	}
	if rec.Config.Scenario != "ticket-sale" {
		t.Errorf("the record does not name the scenario")
	}
}

// lockbench scenarios fits 100 columns (a wide character counts two): the
// list names every scenario, scenarios NAME gives one in full (its
// predictions and source whole), --wide keeps the whole table; an unknown
// NAME is bad input naming the known ones. Before issue 31 the list was
// the 270-column table.
func TestScenariosFit(t *testing.T) {
	bin := buildBinary(t)
	lockbench := func(args ...string) (string, int) {
		out, err := exec.Command(bin, args...).Output()
		status := 0
		if exit, ok := errors.AsType[*exec.ExitError](err); ok {
			status = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), status
	}
	fits := func(what, out string) {
		t.Helper()
		for _, line := range strings.Split(out, "\n") {
			if w := twwidth.Width(line); w > 100 {
				t.Errorf("%s: %d columns: %q", what, w, line)
			}
		}
	}
	list, status := lockbench("scenarios")
	fits("scenarios", list)
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, s := range plan.Scenarios {
		if status != exitOK || !strings.Contains(list, "\n"+s.Name+" ") && !strings.HasPrefix(list, s.Name+" ") {
			t.Errorf("scenarios (status %d) does not list %s", status, s.Name)
		}
		one, status := lockbench("scenarios", s.Name)
		fits("scenarios "+s.Name, one)
		for _, text := range []string{s.Tests, s.Predicts, s.Source, strings.Join(s.Variants, ", ")} {
			if status != exitOK || !strings.Contains(words(one), words(text)) {
				t.Errorf("scenarios %s (status %d) does not say %q:\n%s", s.Name, status, text, one)
			}
		}
	}
	if wide, _ := lockbench("scenarios", "--wide"); !strings.Contains(wide, "predicts") || !strings.Contains(wide, "+----") {
		t.Errorf("scenarios --wide is not the table:\n%s", wide)
	}
	if _, status := lockbench("scenarios", "no-such"); status != exitUsage {
		t.Errorf("scenarios no-such: status %d, want %d", status, exitUsage)
	}
}
