package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lockbench check over what run --history DIR wrote: the directory, the
// shell's DIR/* (JSON lines, EDN and a drawing mixed), or one cell's
// files give one verdict per cell and exit 0 or 1 by the verdicts, never
// 2; the EDN and the drawing are passed over with a note on stderr. Before
// issue 31, DIR was "is a directory" and DIR/* failed on the first .edn,
// both with exit 2.
func TestCheckHistoryDirectory(t *testing.T) {
	bin := buildBinary(t)
	hist := filepath.Join(t.TempDir(), "histories")
	if _, stderr, status := runCLI(t, "run", "--scenario", "long-hold", "--variants", "lua-release,watchdog", "--duration", "1s",
		"--history", hist, "--check-history", "--out", filepath.Join(t.TempDir(), "rec.json")); status != exitThresholds {
		t.Fatalf("run: status %d, want %d; stderr:\n%s", status, exitThresholds, stderr)
	}
	all, err := filepath.Glob(filepath.Join(hist, "*"))
	if err != nil || len(all) != 5 { // two cells' .jsonl and .edn, lua-release's drawing
		t.Fatalf("run --history wrote %v (%v), want 5 files", all, err)
	}
	watchdog, _ := filepath.Glob(filepath.Join(hist, "watchdog-c8.*"))
	for _, tc := range []struct {
		name     string
		args     []string
		status   int
		verdicts map[string]string // cell -> the verdict's words
		note     bool
	}{
		{"directory", []string{hist}, exitThresholds, map[string]string{"lua-release-c8": "not linearizable", "watchdog-c8": ": linearizable"}, true},
		{"DIR/*", all, exitThresholds, map[string]string{"lua-release-c8": "not linearizable", "watchdog-c8": ": linearizable"}, true},
		{"one cell's files", watchdog, exitOK, map[string]string{"watchdog-c8": ": linearizable"}, true},
		{"EDN alone", []string{filepath.Join(hist, "watchdog-c8.edn")}, exitOK, map[string]string{"watchdog-c8": ": linearizable"}, true},
		{"JSON lines alone", []string{filepath.Join(hist, "watchdog-c8.jsonl")}, exitOK, map[string]string{"watchdog-c8": ": linearizable"}, false},
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
