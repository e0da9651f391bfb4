package main

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/soak"
)

// soakLine matches a sample line of lockbench soak.
var soakLine = regexp.MustCompile(`^soak +(\d+)m(\d\d)s +rss +[0-9.]+ MiB +heap +[0-9.]+ MiB +goroutines +\d+ +runs +(\d+) +acquisitions +(\d+) +errors +\d+$`)

// TestSoak runs a short soak on a local redis-server: it must stay flat.
func TestSoak(t *testing.T) {
	needRedisServer(t)
	stdout, stderr, status := runCLI(t, "soak", "--duration", "12s", "--interval", "2s")
	if status != exitOK {
		t.Fatalf("soak: status %d; want 0\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
	t.Logf("soak:\n%s", stdout)
	var samples, runs, firstAt int
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if m := soakLine.FindStringSubmatch(line); m != nil {
			if samples == 0 {
				minutes, _ := strconv.Atoi(m[1])
				sec, _ := strconv.Atoi(m[2])
				firstAt = 60*minutes + sec
			}
			samples++
			runs, _ = strconv.Atoi(m[3])
		}
	}
	// The first sample follows a warm round of every plan, which takes
	// 4–8 s of the 12 under load (9 s once, under make test on a busy
	// host): then one every 2 s while time is left, and the end. A run
	// takes up to 3 s, so a sample between is certain only when the warm
	// round left 4 s.
	want := 2
	if firstAt <= 8 {
		want = 3
	}
	if samples < want {
		t.Errorf("soak printed %d sample lines, the first at %d s; want at least %d (after the warm round, every 2s, end):\n%s", samples, firstAt, want, stdout)
	}
	if runs == 0 {
		t.Errorf("soak's last sample counts no runs:\n%s", stdout)
	}
	if !strings.Contains(stdout, "soak  flat: ") {
		t.Errorf("soak did not say it stayed flat:\n%s", stdout)
	}
}

// TestSoakJudge feeds the flatness judge samples instead of leaking for
// real.
func TestSoakJudge(t *testing.T) {
	first := soak.Sample{RSSMiB: 50, HeapMiB: 10, Goroutines: 20}
	for _, tc := range []struct {
		name string
		last soak.Sample
		want []string // in the error; none: flat
	}{
		{"flat", soak.Sample{RSSMiB: 90, HeapMiB: 14, Goroutines: 24}, nil},
		{"goroutines", soak.Sample{RSSMiB: 50, HeapMiB: 10, Goroutines: 70}, []string{"goroutines grew from 20 to 70"}},
		{"heap", soak.Sample{RSSMiB: 50, HeapMiB: 40, Goroutines: 20}, []string{"heap grew from 10.0 to 40.0 MiB"}},
		{"rss", soak.Sample{RSSMiB: 200, HeapMiB: 10, Goroutines: 20}, []string{"rss grew from 50.0 to 200.0 MiB"}},
		{"all", soak.Sample{RSSMiB: 200, HeapMiB: 40, Goroutines: 70}, []string{"goroutines grew", "heap grew", "rss grew"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := soakError(t.Context(), soak.Judge(first, tc.last))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("judgeSoak: %v; want flat", err)
				}
				return
			}
			if !errors.Is(err, errThresholds) {
				t.Fatalf("judgeSoak: %v; want an error wrapping errThresholds", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("judgeSoak: %q; want it to say %q", err, w)
				}
			}
			if status := exitStatus(err, &strings.Builder{}); status != exitThresholds {
				t.Errorf("exit status %d; want %d", status, exitThresholds)
			}
		})
	}
}

// TestSoakBadFlags checks that bad flags are a usage error of one line
// naming the flag.
func TestSoakBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"soak", "--duration", "0s"}, "--duration"},
		{[]string{"soak", "--interval", "-1s"}, "--interval"},
		{[]string{"soak", "--target", "http://nowhere"}, "--target"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, status := runCLI(t, tc.args...)
			if status != exitUsage {
				t.Errorf("status %d; want %d", status, exitUsage)
			}
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], tc.flag) {
				t.Errorf("stderr %q; want one line naming %s", stderr, tc.flag)
			}
			if stdout != "" {
				t.Errorf("stdout %q; want nothing", stdout)
			}
		})
	}
}
