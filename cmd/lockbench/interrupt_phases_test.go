package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// A signal at any phase of a run — while its topology starts, during the
// warm-up, during the measured phase, while it writes its results — stops
// it within a few seconds, leaves no process it spawned behind, and leaves
// the record either absent or complete and valid, with no temporary file.
func TestSignalAtAnyPhase(t *testing.T) {
	topotest.Faulted(t)
	t.Parallel() // its phases each run a lockbench process of their own, which mostly waits
	bin := buildBinary(t)
	type phase struct {
		name  string
		after string        // signal once stderr has a line with this (""" at start)
		delay time.Duration // and this much later
		args  []string
	}
	cluster := []string{"--topology", "local:cluster", "--variants", "lua-release", "--duration", "2s", "--warmup", "0"}
	// Cells of 500 ms: what lands where is the signal's time from the
	// start of a cell ("[2/"), which the writing phases take from its end.
	const cell = 500 * time.Millisecond
	single := []string{"--variants", "lua-release,set-nx-ex", "--clients", "4", "--duration", cell.String()}
	phases := []phase{
		{"topology starting", "", 300 * time.Millisecond, cluster},
		{"topology starting later", "", 1200 * time.Millisecond, cluster},
		{"warm-up", "[1/", 300 * time.Millisecond, append(clone(single), "--warmup", "3s")},
		{"measured phase", "[2/", 300 * time.Millisecond, append(clone(single), "--warmup", "0")},
	}
	// While the results are written: the last cell ends about one cell
	// after "[2/"; signals land around it, before, during and after the
	// writing.
	for _, d := range []time.Duration{-100, 0, 50, 100, 150, 250} {
		delay := cell + d*time.Millisecond
		phases = append(phases, phase{fmt.Sprintf("writing +%dms", delay.Milliseconds()), "[2/", delay, append(clone(single), "--warmup", "0")})
	}
	for _, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			t.Parallel() // its own process, TMPDIR and mark
			dir := t.TempDir()
			out := filepath.Join(dir, "run.json")
			mark := fmt.Sprintf("LOCKBENCH_TEST_MARK=%d", time.Now().UnixNano())
			tmp := t.TempDir() // the redis-servers' directories go there
			args := append([]string{"run", "--quiet", "--out", out, "--report", filepath.Join(dir, "run.html"), "--hlog", filepath.Join(dir, "hlog")}, ph.args...)
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), mark, "TMPDIR="+tmp) // inherited by every process it spawns
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			seen := make(chan struct{})
			go func() {
				s := bufio.NewScanner(stderr)
				closed := false
				for s.Scan() {
					if !closed && strings.Contains(s.Text(), ph.after) {
						close(seen)
						closed = true
					}
				}
				if !closed {
					close(seen)
				}
			}()
			if ph.after != "" {
				<-seen
			}
			time.Sleep(ph.delay)
			if running := processesOf(mark, tmp); ph.name == "measured phase" && len(running) < 2 {
				t.Errorf("before the signal the check sees %v; want lockbench and its redis-server", running)
			}
			_ = cmd.Process.Signal(syscall.SIGINT)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("lockbench did not stop within 10s of SIGINT")
			}
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // the parent-death signal's delivery
			if left := processesOf(mark, tmp); len(left) > 0 {
				t.Errorf("processes left behind: %v", left)
			}
			if _, err := os.Stat(out); err == nil {
				if rec, err := record.Load(out); err != nil || len(rec.Cells) == 0 {
					t.Errorf("the record exists but is not complete: %v", err)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// clone returns a copy of args, so that appends do not share it.
func clone(args []string) []string { return append([]string(nil), args...) }

// processesOf lists the processes whose environment holds mark or whose
// working directory is under dir (redis-server overwrites its environment
// with its process title, but runs in its directory).
func processesOf(mark, dir string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var found []string
	for _, d := range dirs {
		env, _ := os.ReadFile(filepath.Join(d, "environ"))
		cwd, _ := os.Readlink(filepath.Join(d, "cwd"))
		if !strings.Contains(string(env), mark) && !strings.HasPrefix(cwd, dir) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		found = append(found, filepath.Base(d)+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return found
}
