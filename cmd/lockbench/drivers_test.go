package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/conform"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// lockbench driver check go-lua passes every check, a line each, found
// through $LOCKBENCH_DRIVERS as after make drivers; lockbench drivers
// lists it as runnable.
func TestDriverCheckGoLua(t *testing.T) {
	t.Setenv(driver.DirEnv, drivertest.DriversDir(t))
	stdout, stderr, status := runCLI(t, "driver", "check", "--acquire-timeout", "500ms", "go-lua")
	if status != exitOK {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
	for _, c := range conform.Checks() {
		if !strings.Contains(stdout, "PASS  "+c+" ") {
			t.Errorf("no PASS line for %s:\n%s", c, stdout)
		}
	}
	if !strings.Contains(stdout, "driver go-lua: 10 of 10 checks passed") {
		t.Errorf("no summary:\n%s", stdout)
	}
	stdout, _, status = runCLI(t, "drivers")
	if status != exitOK || !regexp.MustCompile(`(?m)^go-lua\s+lockbench lua-release\s+go\s+-\s+yes\s+\./go-lua serve$`).MatchString(stdout) {
		t.Errorf("lockbench drivers, status %d:\n%s", status, stdout)
	}
}

// The broken driver (every acquire succeeds) fails exclusion: exit status
// 1, the failing checks said.
func TestDriverCheckBroken(t *testing.T) {
	bin := drivertest.Build(t, drivertest.BadDriverPackage)
	stdout, stderr, status := runCLI(t, "driver", "check", "--acquire-timeout", "500ms", "--driver", "broken="+bin+" noexclusion", "broken")
	if status != exitThresholds {
		t.Errorf("exit status %d, want %d\nstderr: %s", status, exitThresholds, stderr)
	}
	if !strings.Contains(stdout, "FAIL  exclusion") || !strings.Contains(stdout, "no mutual exclusion") {
		t.Errorf("stdout does not fail exclusion:\n%s", stdout)
	}
	if !strings.Contains(stderr, "lockbench: driver broken: ") || !strings.Contains(stderr, "checks passed") {
		t.Errorf("stderr: %q", stderr)
	}
}

// A driver that cannot run, or a name no driver has: exit status 2, one
// line, before anything starts.
func TestDriverCheckBadDriver(t *testing.T) {
	t.Setenv(driver.DirEnv, t.TempDir())
	for args, want := range map[string]string{
		"./no-such-driver --flag": `cannot run "./no-such-driver"`,
		"no-such-name":            `unknown driver "no-such-name"`,
	} {
		stdout, stderr, status := runCLI(t, "driver", "check", args)
		if status != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) || stdout != "" {
			t.Errorf("driver check %s: status %d, stderr %q, stdout %q; want %d and one line saying %s", args, status, stderr, stdout, exitUsage, want)
		}
	}
}

// SIGTERM of lockbench in the middle of driver check (its driver stopped
// answering) ends it as interrupted, and leaves no process of the driver,
// its child neither.
func TestDriverCheckSIGTERM(t *testing.T) {
	topotest.Faulted(t)
	bin, driverBin := buildBinary(t), drivertest.Build(t, drivertest.BadDriverPackage)
	mark := "LOCKBENCH_TEST_MARK=" + t.Name() + strconv.Itoa(os.Getpid())
	cmd := exec.Command(bin, "driver", "check", "--driver", "mute="+driverBin+" silent child", "mute")
	cmd.Env = append(os.Environ(), mark)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	drivers := func() []int {
		var pids []int
		for _, pid := range procfs.WithEnv(mark) {
			if pid != cmd.Process.Pid {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	for deadline := time.Now().Add(30 * time.Second); len(drivers()) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the driver and its child did not start within 30s: %v\nstderr: %s", drivers(), stderr.String())
		}
	}
	time.Sleep(300 * time.Millisecond) // init done, the round trip waiting
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("lockbench did not stop within 20s of SIGTERM")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Errorf("exit %v, want status %d; stderr: %s", err, exitInterrupted, stderr.String())
	}
	for deadline := time.Now().Add(2 * time.Second); len(drivers()) > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if left := drivers(); len(left) > 0 {
		t.Errorf("driver processes left after SIGTERM of lockbench: %v", left)
	}
}
