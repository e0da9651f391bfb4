package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/record"
)

// A client count whose memory the machine does not have is refused at
// once, exit 2, in one line naming the estimate and the limit, before a
// topology starts (no redis-server directory) or a client is made.
func TestTooManyClientsRefused(t *testing.T) {
	if _, ok := procfs.MemAvailableKiB(); !ok {
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
// RSS of the process, with each client library. The peak is the process's
// own VmHWM, read while it runs: the Maxrss that wait4 reports on Linux is
// never lower than the peak RSS of the process that started it (the kernel
// carries the address space's high-water mark over exec, and Go starts
// children with vfork), here the test binary's, 617 MB under -race in CI.
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
			estimate, _, _ := plan.MemoryKiB(p, nil)
			out := filepath.Join(t.TempDir(), "run.json")
			proc := startLockbench(t, bin, t.TempDir(), append([]string{"run", "--out", out}, args...)...)
			peakKiB := watchPeakRSS(proc)
			if status := proc.wait(t, 60*time.Second); status != exitOK {
				t.Fatalf("exit %d: %s", status, proc.stderr())
			}
			peak := peakKiB()
			if peak == 0 {
				t.Fatal("no VmHWM read from /proc while the run ran")
			}
			t.Logf("%s: peak RSS %d KiB, estimate %d KiB", library, peak, estimate)
			if peak > estimate {
				t.Errorf("peak RSS %d KiB over the estimate %d KiB", peak, estimate)
			}
			// Nor do 10,000 clients make errors of the harness's own: an
			// uncontended server answers every command well within its
			// timeouts.
			rec, err := record.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rec.Cells {
				if c.Errors != 0 || c.Timeouts != 0 || c.Acquisitions == 0 {
					t.Errorf("%s: %d acquisitions, %d errors %v, %d timeouts; want acquisitions and no error", c.Variant, c.Acquisitions, c.Errors, c.ErrorsByKind, c.Timeouts)
				}
			}
		})
	}
}

// watchPeakRSS reads proc's VmHWM (KiB) every 10 ms until it exits; the
// function it returns waits for the last read and gives the highest.
func watchPeakRSS(proc *lockbenchProc) func() int64 {
	pid := proc.cmd.Process.Pid
	peak := make(chan int64, 1)
	go func() {
		var highest int64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib, _ := procfs.StatusKiB(pid, "VmHWM"); kib > highest {
				highest = kib
			}
			select {
			case <-proc.done:
				peak <- highest
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { return <-peak }
}
