package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
)

// run --history writes each cell's history as JSON lines and EDN, and with
// --check-history puts porcupine's verdict beside the oracle's and exits 1
// when one is not linearizable; lockbench check reads the same files to
// the same verdicts, draws the failing one with -o, and exits 1 for it and
// 0 for the linearizable one.
//
// The TTL is 600 ms and the hold 1.2 s, three times long-hold's 200 and
// 400 ms: the watchdog, renewing every 200 ms, has 400 ms of slack where it
// had 133 — under .ci/run's load a renewal once came later than that and
// the watchdog's history was not linearizable either. The cells last 3 s:
// lua-release's first lease expires 600 ms into the first hold, and a
// waiter must take it before the cell ends; in a 1 s cell under .ci/run's
// load none did (22 events, no overlap).
func TestRunHistoryAndCheck(t *testing.T) {
	dir := t.TempDir()
	hist, out := filepath.Join(dir, "histories"), filepath.Join(dir, "rec.json")
	_, stderr, status := runCLI(t, "run", "--scenario", "long-hold", "--variants", "lua-release,watchdog", "--duration", "3s", "--ttl", "600ms", "--hold", "1200ms",
		"--history", hist, "--check-history", "--out", out)
	if status != exitThresholds || !strings.Contains(stderr, "1 of 2 histories are not linearizable") {
		t.Fatalf("run: status %d, want %d (a history not linearizable); stderr:\n%s", status, exitThresholds, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rec record.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"lua-release": record.VerdictNotLinearizable, "watchdog": record.VerdictLinearizable}
	for _, c := range rec.Cells {
		h := c.History
		if h == nil || h.Check == nil || h.Events == 0 || h.Cut {
			t.Fatalf("%s: history %+v, want a whole one, checked", c.Variant, h)
		}
		if h.Check.Verdict != want[c.Variant] || (h.Check.Window != nil) != (c.Violations.Overlaps > 0) {
			t.Errorf("%s: verdict %q (window %v) with %d overlaps; want %q", c.Variant, h.Check.Verdict, h.Check.Window, c.Violations.Overlaps, want[c.Variant])
		}
		for _, ext := range []string{".jsonl", ".edn"} {
			if _, err := os.Stat(filepath.Join(hist, c.Variant+"-c8"+ext)); err != nil {
				t.Errorf("%s: %v", c.Variant, err)
			}
		}
		if want := filepath.Join(hist, c.Variant+"-c8.jsonl"); h.Path != want {
			t.Errorf("%s: history path %q, want %q", c.Variant, h.Path, want)
		}
	}
	if _, err := os.Stat(filepath.Join(hist, "lua-release-c8.html")); err != nil {
		t.Errorf("run --check-history drew no window: %v", err)
	}

	lua, watchdog := filepath.Join(hist, "lua-release-c8.jsonl"), filepath.Join(hist, "watchdog-c8.jsonl")
	drawing := filepath.Join(dir, "window.html")
	stdout, stderr, status := runCLI(t, "check", "-o", drawing, lua)
	if status != exitThresholds || !strings.Contains(stdout, "not linearizable") || !strings.Contains(stdout, "shortest window: lock:0, 2 leases") {
		t.Errorf("check %s: status %d, stdout:\n%s\nstderr: %s", lua, status, stdout, stderr)
	}
	if page, err := os.ReadFile(drawing); err != nil || !strings.Contains(string(page), "<html") {
		t.Errorf("check -o: no HTML drawing (%v)", err)
	}
	if stdout, _, status := runCLI(t, "check", watchdog); status != exitOK || !strings.Contains(stdout, ": linearizable") {
		t.Errorf("check %s: status %d, stdout:\n%s", watchdog, status, stdout)
	}
	drawings := filepath.Join(dir, "drawings")
	if _, _, status := runCLI(t, "check", "-o", drawings, lua, watchdog); status != exitThresholds {
		t.Errorf("check of both: status %d, want %d", status, exitThresholds)
	}
	if names := listDir(t, drawings); len(names) != 1 || names[0] != "lua-release-c8.html" {
		t.Errorf("check -o DIR drew %v, want the failing history's alone", names)
	}
	// The leases view: lua-release kept its word (every paused holder's
	// release failed), though its holders overlapped.
	if stdout, _, status := runCLI(t, "check", "--view", "leases", lua); status != exitOK || !strings.Contains(stdout, ": linearizable (leases") {
		t.Errorf("check --view leases %s: status %d, stdout:\n%s", lua, status, stdout)
	}
}

// A history that cannot be read is bad input: exit 2, one line naming
// the file.
func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.jsonl")
	if err := os.WriteFile(corrupt, []byte(`{"schema":"lockbench-history/1","limit":1,"start":"2026-01-02T03:04:05Z"}`+"\n{\"index\":5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notJSON := filepath.Join(dir, "record.json")
	if err := os.WriteFile(notJSON, []byte("not a history\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing", []string{"check", filepath.Join(dir, "none.jsonl")}, []string{"none.jsonl"}},
		{"corrupt", []string{"check", corrupt}, []string{"corrupt.jsonl", "not a lockbench history", "index"}},
		{"not a history", []string{"check", notJSON}, []string{"record.json", "not a lockbench history"}},
		{"no history", []string{"check"}, []string{"at least one history"}},
		{"bad view", []string{"check", "--view", "all", corrupt}, []string{"--view", "critical-sections or leases"}},
		{"bad limit", []string{"check", "--limit", "-1", corrupt}, []string{"--limit"}},
		{"history-max without history", []string{"run", "--history-max", "100"}, []string{"--history-max", "--history"}},
		{"history-max zero", []string{"run", "--history", dir, "--history-max", "0"}, []string{"--history-max", "at least 1"}},
		{"history not a directory", []string{"run", "--history", filepath.Join(corrupt, "sub")}, []string{"--history", "corrupt.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, status := runCLI(t, tc.args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if status != exitUsage || len(lines) != 1 || stdout != "" {
				t.Fatalf("status %d, stderr %q, stdout %q; want %d and one line", status, stderr, stdout, exitUsage)
			}
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("%q does not say %q", lines[0], w)
				}
			}
		})
	}
}

// check --help goes to stdout, no line over 100 columns, with examples.
func TestCheckHelp(t *testing.T) {
	stdout, stderr, status := runCLI(t, "check", "--help")
	if status != exitOK || stderr != "" || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "--view") {
		t.Fatalf("status %d, stderr %q, stdout:\n%s", status, stderr, stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	if stdout, _, _ := runCLI(t, "help"); !strings.Contains(stdout, "\n  check ") {
		t.Error("lockbench help does not list check")
	}
}
