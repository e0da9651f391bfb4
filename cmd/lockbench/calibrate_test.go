package main

import (
	"os/exec"
	"strings"
	"testing"
)

func TestCalibrateBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--connections", "0"}, []string{"--connections", "at least 1"}},
		{[]string{"--connections", "many"}, []string{"--connections"}},
		{[]string{"--requests", "-5"}, []string{"--requests", "at least 1"}},
		{[]string{"--duration", "0"}, []string{"--duration", "positive"}},
		{[]string{"--duration", "-1s"}, []string{"--duration", "positive"}},
		{[]string{"--duration", "ten"}, []string{"--duration"}},
		{[]string{"--warmup", "-1s"}, []string{"--warmup", "0 or more"}},
		{[]string{"--pairs", "0"}, []string{"--pairs", "at least 1"}},
		{[]string{"--client", "jedis"}, []string{"--client", `"jedis"`, "rueidis", "go-redis", "both"}},
		{[]string{"extra"}, []string{`"extra"`}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, status := runCLI(t, append([]string{"calibrate"}, tc.args...)...)
			if status != exitUsage {
				t.Errorf("status %d, want %d; stderr: %s", status, exitUsage, stderr)
			}
			if lines := strings.Count(stderr, "\n"); lines != 1 || stdout != "" {
				t.Errorf("want one line on stderr and nothing on stdout; got stdout %q, stderr %q", stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

// The options' defaults are the flags': three pairs, a second's warm-up.
func TestCalibrateDefaults(t *testing.T) {
	help, _, status := runCLI(t, "calibrate", "--help")
	if status != exitOK {
		t.Fatalf("calibrate --help: status %d", status)
	}
	for _, want := range []string{"--pairs N", "(default 3)", "--warmup", "(default 1s)", "Examples:", "lockbench calibrate --pairs 5"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

// needRedisServer fails the test, saying how to install it, when
// redis-server is not on PATH.
func needRedisServer(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatal("this test needs a real redis-server on PATH (apt-get install -y redis-server, or brew install redis)")
	}
}
