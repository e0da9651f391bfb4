package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
)

// lockbench check over what run --history DIR wrote: the directory, the
// shell's DIR/* (JSON lines, EDN and a drawing mixed), or one cell's
// files give one verdict per cell and exit 0 or 1 by the verdicts, never
// 2; the EDN and the drawing are passed over with a note on stderr. Before
// issue 31, DIR was "is a directory" and DIR/* failed on the first .edn,
// both with exit 2.
func TestCheckHistoryDirectory(t *testing.T) {
	bin := buildBinary(t)
	hist, out := filepath.Join(t.TempDir(), "histories"), filepath.Join(t.TempDir(), "rec.json")
	_, stderr, status := runCLI(t, "run", "--scenario", "long-hold", "--variants", "lua-release,watchdog", "--duration", "1s",
		"--history", hist, "--check-history", "--out", out)
	// What each cell's history is depends on the run (long-hold lets a
	// second holder into lua-release, unless a loaded machine starved it):
	// check must agree with the verdicts the run recorded, whatever they are.
	rec, err := record.Load(out)
	if err != nil {
		t.Fatalf("run: status %d, %v; stderr:\n%s", status, err, stderr)
	}
	words, failing := map[string]string{}, map[string]bool{}
	for _, c := range rec.Cells {
		if c.History == nil || c.History.Check == nil {
			t.Fatalf("%s: no history verdict in the record; stderr:\n%s", c.Variant, stderr)
		}
		cell := c.Variant + "-c8"
		words[cell] = "): " + c.History.Check.Verdict + " ("
		failing[cell] = c.History.Check.Verdict == record.VerdictNotLinearizable
	}
	statusOf := func(cells ...string) int {
		for _, cell := range cells {
			if failing[cell] {
				return exitThresholds
			}
		}
		return exitOK
	}
	if want := statusOf("lua-release-c8", "watchdog-c8"); status != want {
		t.Fatalf("run: status %d, want %d by its verdicts %v; stderr:\n%s", status, want, words, stderr)
	}
	all, err := filepath.Glob(filepath.Join(hist, "*"))
	drawings := 0
	for _, f := range failing {
		if f {
			drawings++ // a failing cell's drawing
		}
	}
	if err != nil || len(all) != 4+drawings { // two cells' .jsonl and .edn
		t.Fatalf("run --history wrote %v (%v), want %d files", all, err, 4+drawings)
	}
	watchdog, _ := filepath.Glob(filepath.Join(hist, "watchdog-c8.*"))
	both := map[string]string{"lua-release-c8": words["lua-release-c8"], "watchdog-c8": words["watchdog-c8"]}
	one := map[string]string{"watchdog-c8": words["watchdog-c8"]}
	for _, tc := range []struct {
		name     string
		args     []string
		status   int
		verdicts map[string]string // cell -> the verdict's words
		note     bool
	}{
		{"directory", []string{hist}, statusOf("lua-release-c8", "watchdog-c8"), both, true},
		{"DIR/*", all, statusOf("lua-release-c8", "watchdog-c8"), both, true},
		{"one cell's files", watchdog, statusOf("watchdog-c8"), one, len(watchdog) > 1},
		{"EDN alone", []string{filepath.Join(hist, "watchdog-c8.edn")}, statusOf("watchdog-c8"), one, true},
		{"JSON lines alone", []string{filepath.Join(hist, "watchdog-c8.jsonl")}, statusOf("watchdog-c8"), one, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"check"}, tc.args...)...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			status := 0
			if err := cmd.Run(); err != nil {
				var exit *exec.ExitError
				if !errors.As(err, &exit) {
					t.Fatal(err)
				}
				status = exit.ExitCode()
			}
			if status != tc.status {
				t.Fatalf("status %d, want %d; stdout:\n%s\nstderr:\n%s", status, tc.status, stdout.String(), stderr.String())
			}
			var lines []string
			for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
				if strings.HasPrefix(line, hist) {
					lines = append(lines, line)
				}
			}
			if len(lines) != len(tc.verdicts) {
				t.Errorf("%d verdicts, want one per cell (%d):\n%s", len(lines), len(tc.verdicts), stdout.String())
			}
			for cell, words := range tc.verdicts {
				found := false
				for _, line := range lines {
					found = found || (strings.Contains(line, cell+".jsonl") && strings.Contains(line, words))
				}
				if !found {
					t.Errorf("no verdict %q for %s in:\n%s", words, cell, stdout.String())
				}
			}
			notes := 0
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				switch {
				case strings.HasPrefix(line, "note: "):
					notes++
				case line != "" && !strings.Contains(line, "histories are not linearizable"):
					t.Errorf("stderr line %q is neither a note nor the verdicts' sum", line)
				}
			}
			if tc.note != (notes > 0) {
				t.Errorf("%d notes on stderr, want some: %v:\n%s", notes, tc.note, stderr.String())
			}
		})
	}
}
