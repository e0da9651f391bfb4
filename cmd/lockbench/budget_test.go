package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/cpubudget"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// groupsOf lists the cgroups lockbench process pid made (cpubudget's
// p<pid>-<start>/ and the groups in it).
func groupsOf(pid int) []string {
	var own []string
	for _, dir := range cpubudget.Leftovers() {
		if strings.HasPrefix(filepath.Base(dir), fmt.Sprintf("p%d-", pid)) || strings.Contains(dir, fmt.Sprintf("/p%d-", pid)) {
			own = append(own, dir)
		}
	}
	return own
}

// A run with a node CPU budget removes its cgroups when it ends: at its
// end, on SIGTERM, and, killed with SIGKILL, at the next run.
func TestBudgetCgroupsRemoved(t *testing.T) {
	topotest.Faulted(t)
	if _, err := cpubudget.New(0.5); err != nil {
		t.Skipf("no cgroup to write here: %v", err)
	}
	bin := buildBinary(t)
	tmp := t.TempDir()
	args := func(topology, duration string) []string {
		return []string{"run", "--topology", topology, "--node-cpu", "0.3", "--variants", "lua-release", "--clients", "2",
			"--duration", duration, "--warmup", "0", "--out", filepath.Join(t.TempDir(), "run.json")}
	}
	// The three runs start at once (each has cgroups of its own, named
	// after its pid); they are then checked one after the other, so that
	// the run after the SIGKILL, which removes the groups of runs that are
	// gone, starts only once the other two were checked. The two that are
	// signalled are still in their 20 s cell when their turn comes.
	ends := []string{"run's end", "SIGTERM", "SIGKILL"}
	procs := make([]*lockbenchProc, len(ends))
	for i, end := range ends {
		duration := "20s"
		if end == "run's end" {
			duration = "2s"
		}
		procs[i] = startLockbench(t, bin, tmp, args("local:cluster?masters=2", duration)...)
	}
	for i, end := range ends {
		p := procs[i]
		p.waitLine(t, "[1/", 20*time.Second)
		pid := p.cmd.Process.Pid
		if during := groupsOf(pid); len(during) != 3 { // its own directory and the two masters'
			t.Fatalf("%s: while it runs, the run has cgroups %v; want its own and two nodes'", end, during)
		}
		switch end {
		case "SIGTERM":
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
		case "SIGKILL":
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
		}
		p.wait(t, 15*time.Second)
		if end == "SIGKILL" {
			if left := groupsOf(pid); len(left) == 0 {
				t.Fatal("SIGKILL: no cgroup left behind; the test proves nothing")
			}
			// Any run with a budget removes the groups of runs that are
			// gone: one node, up at once, where a cluster takes seconds.
			next := startLockbench(t, bin, tmp, args("local:single", "200ms")...)
			if status := next.wait(t, 30*time.Second); status != exitOK {
				t.Fatalf("the next run: exit %d\n%s", status, next.stderr())
			}
		}
		if left := groupsOf(pid); len(left) > 0 {
			t.Errorf("after %s: cgroups left: %v", end, left)
		}
	}
}

// A budget that is not a share of a core, or no cgroup to write, is
// refused: exit 2, one line that says why.
func TestBudgetRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"zero", "", []string{"--node-cpu", "0"}, "--node-cpu: want a share of one core in (0, 1]"},
		{"above one", "", []string{"--topology", "local:cluster?masters=2&cpu=1.5"}, "cpu must be a share of one core in (0, 1]"},
		{"external", "", []string{"--target", "redis://127.0.0.1:1", "--node-cpu", "0.2"}, "holds the nodes lockbench starts"},
		{"no cgroup", t.TempDir(), []string{"--node-cpu", "0.2"}, "no cpu controller under"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(cpubudget.RootEnv, tc.env)
			}
			_, stderr, status := runCLI(t, append([]string{"run", "--variants", "lua-release", "--duration", "200ms"}, tc.args...)...)
			if status != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", status, stderr, exitUsage, tc.want)
			}
		})
	}
}
