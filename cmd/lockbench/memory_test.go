package main

import (
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A client count whose memory the machine does not have is refused at
// once, exit 2, in one line naming the estimate and the limit, before a
// topology starts (no redis-server directory) or a client is made.
func TestTooManyClientsRefused(t *testing.T) {
	if _, ok := availableKiB(); !ok {
		t.Fatal("no MemAvailable in /proc/meminfo: the check cannot run here")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "run.json")
	for _, args := range [][]string{
		{"run", "--clients", "1000000000", "--variants", "lua-release"},
		{"run", "--clients", "8,1000000000", "--variants", "lua-release", "--client", "go-redis"},
		{"run", "--clients", "1000000", "--variants", "rueidislock"}, // 1M of the costliest
		{"sweep", "--clients", "1,1000000000", "--variants", "lua-release"},
	} {
		began := time.Now()
		stdout, stderr, status := runCLI(t, append(args, "--duration", "1s", "--out", out)...)
		if status != exitUsage || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, status, stdout, stderr)
		}
		for _, want := range []string{"--clients", "would take about", "MemAvailable"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: %q does not say %q", args, stderr, want)
			}
		}
		if took := time.Since(began); took > time.Second {
			t.Errorf("%v: refused after %v", args, took)
		}
		if started := nodeDirs(t, tmp); len(started) > 0 {
			t.Errorf("%v: a redis-server was started: %v", args, started)
		}
	}
}

// The estimate bounds what a cell of 10,000 clients really takes: the peak
// RSS of the process, with each client library.
func TestMemoryEstimateBoundsRSS(t *testing.T) {
	bin := buildBinary(t)
	for _, library := range []string{"rueidis", "go-redis"} {
		t.Run(library, func(t *testing.T) {
			args := []string{"--variants", "lua-release,watchdog", "--clients", "10000", "--client", library,
				"--duration", "1s", "--warmup", "0", "--quiet"}
			_, p, _, err := parseRun(args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			estimate, _, _ := estimateKiB(p, nil)
			proc := startLockbench(t, bin, t.TempDir(), append([]string{"run", "--out", filepath.Join(t.TempDir(), "run.json")}, args...)...)
			if status := proc.wait(t, 60*time.Second); status != exitOK {
				t.Fatalf("exit %d: %s", status, proc.stderr())
			}
			peak := proc.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
			t.Logf("%s: peak RSS %d KiB, estimate %d KiB", library, peak, estimate)
			if peak > estimate {
				t.Errorf("peak RSS %d KiB over the estimate %d KiB", peak, estimate)
			}
		})
	}
}
