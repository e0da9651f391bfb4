package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// A run killed with SIGKILL leaves its redis-servers' directories; the
// next run removes them, and keeps those of a run still going.
func TestKilledRunsDirsRemoved(t *testing.T) {
	topotest.Faulted(t)
	bin := buildBinary(t)
	tmp := t.TempDir()
	long := []string{"run", "--topology", "local:replicated?replicas=1", "--variants", "lua-release", "--clients", "2",
		"--duration", "30s", "--warmup", "0"}
	killed := startLockbench(t, bin, tmp, append(long, "--out", filepath.Join(t.TempDir(), "killed.json"))...)
	killed.waitLine(t, "[1/", 15*time.Second)
	left := nodeDirs(t, tmp)
	if len(left) != 2 {
		t.Fatalf("the run made %v; want two directories, master and replica", left)
	}
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.wait(t, 5*time.Second)
	if now := nodeDirs(t, tmp); !slices.Equal(now, left) {
		t.Fatalf("after SIGKILL: %v, want %v left behind", now, left)
	}

	live := startLockbench(t, bin, tmp, append(long, "--out", filepath.Join(t.TempDir(), "live.json"))...)
	live.waitLine(t, "[1/", 15*time.Second)
	liveDirs := slices.DeleteFunc(nodeDirs(t, tmp), func(d string) bool { return slices.Contains(left, d) })
	if len(liveDirs) != 2 {
		t.Fatalf("the live run's directories: %v", liveDirs)
	}

	next := startLockbench(t, bin, tmp, "run", "--variants", "lua-release", "--clients", "2", "--duration", "300ms", "--warmup", "0",
		"--out", filepath.Join(t.TempDir(), "next.json"))
	if status := next.wait(t, 20*time.Second); status != exitOK {
		t.Fatalf("the next run: exit %d\n%s", status, next.stderr())
	}
	now := nodeDirs(t, tmp)
	for _, d := range left {
		if slices.Contains(now, d) {
			t.Errorf("%s of the killed run is still there", filepath.Base(d))
		}
	}
	for _, d := range liveDirs {
		if !slices.Contains(now, d) {
			t.Errorf("%s of the live run was removed", filepath.Base(d))
		}
	}
	if err := live.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	live.wait(t, 10*time.Second)
}

// The line an interrupt ends with says what is true: nothing was measured
// while the topology started, and no record is written; in the measured
// phase, what was measured is saved, and where.
func TestInterruptSaysWhatWasSaved(t *testing.T) {
	topotest.Faulted(t)
	bin := buildBinary(t)
	for _, tc := range []struct {
		name, after string
		delay       time.Duration
		args        []string
		want        string
		saved       bool
	}{
		{"topology starting", "", 300 * time.Millisecond, []string{"--topology", "local:cluster"}, "interrupted before anything was measured: no record written", false},
		{"measured phase", "[1/", 500 * time.Millisecond, nil, "interrupted; what was measured is saved in ", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.json")
			p := startLockbench(t, bin, t.TempDir(), append([]string{"run", "--variants", "lua-release", "--clients", "4", "--duration", "5s",
				"--warmup", "0", "--out", out}, tc.args...)...)
			if tc.after != "" {
				p.waitLine(t, tc.after, 15*time.Second)
			}
			time.Sleep(tc.delay)
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if status := p.wait(t, 10*time.Second); status != exitInterrupted {
				t.Errorf("exit %d, want %d", status, exitInterrupted)
			}
			last := p.lastLine()
			if !strings.Contains(last, tc.want) || (tc.saved && !strings.Contains(last, out)) {
				t.Errorf("last line %q; want it to say %q", last, tc.want)
			}
			_, err := record.Load(out)
			if saved := err == nil; saved != tc.saved {
				t.Errorf("record saved %v (%v), want %v", saved, err, tc.saved)
			}
		})
	}
}

// SIGTERM while the clients of a large count are being created (here
// rueidislock's, each a client library of its own, which take seconds) is
// honoured within a second, and says that nothing was measured yet.
func TestSignalDuringClientCreation(t *testing.T) {
	topotest.Faulted(t)
	bin := buildBinary(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "run.json")
	p := startLockbench(t, bin, tmp, "run", "--variants", "rueidislock", "--clients", "1500", "--duration", "1s", "--warmup", "0", "--out", out)
	p.waitLine(t, "[1/", 15*time.Second)
	time.Sleep(500 * time.Millisecond)
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	status := p.wait(t, 10*time.Second)
	took := time.Since(sent)
	t.Logf("stopped %v after SIGTERM", took)
	if took > time.Second {
		t.Errorf("stopping took %v, want under 1s", took)
	}
	if status != exitInterrupted {
		t.Errorf("exit %d, want %d", status, exitInterrupted)
	}
	if last := p.lastLine(); !strings.Contains(last, "before anything was measured") {
		t.Errorf("last line %q: the signal did not land while the clients were created", last)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a record of nothing was written: %v", err)
	}
}
