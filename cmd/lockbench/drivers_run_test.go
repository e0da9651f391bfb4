package main

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// drv:NAME with a name no manifest or --driver knows, or with a command
// that cannot run, is bad input: exit 2 before anything runs, one line
// naming the flag.
func TestRunBadDriverExitsTwo(t *testing.T) {
	t.Setenv(driver.DirEnv, t.TempDir()) // no manifests
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--variants", "lua-release,drv:nosuch"}, `--variants: unknown driver "nosuch"`},
		{[]string{"--variants", "drv:gone", "--driver", "gone=/nonexistent/driver --flag"}, `cannot run "/nonexistent/driver"`},
		{[]string{"--variants", "drv:x", "--driver", "x"}, "--driver: "},
		{[]string{"--variants", "drv:x", "--driver", "x=/bin/true", "--driver-procs", "0"}, "--driver-procs: must be at least 1"},
		{[]string{"--variants", "drv:x", "--driver", "x=/bin/true", "--driver-procs", "many"}, `--driver-procs`},
	} {
		stdout, stderr, status := runCLI(t, append([]string{"run", "--duration", "1s", "--out", filepath.Join(t.TempDir(), "r.json")}, tc.args...)...)
		if status != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, status, stdout, stderr, tc.want)
		}
	}
}

// No driver process outlives lockbench, whatever ends it during a driver
// cell: SIGTERM (the cell's processes are closed as the run stops) or
// SIGKILL (the kernel kills them: driver.Start's Pdeathsig).
func TestNoDriverOutlivesLockbench(t *testing.T) {
	topotest.Faulted(t)
	bin := buildBinary(t)
	golua := drivertest.Build(t, drivertest.GoLuaPackage)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			var b [4]byte
			_, _ = rand.Read(b[:])
			name := "leftover-" + hex.EncodeToString(b[:]) // this test's drivers alone carry it
			env := driver.DriverEnv + "=" + name
			tmp := t.TempDir()
			p := startLockbench(t, bin, tmp, "run", "--variants", "drv:"+name, "--driver", name+"="+golua, "--driver-procs", "3",
				"--clients", "6", "--duration", "30s", "--warmup", "0", "--out", filepath.Join(tmp, "run.json"))
			p.waitLine(t, "[1/", 30*time.Second)
			deadline := time.Now().Add(15 * time.Second)
			for len(procfs.WithEnv(env)) < 3 {
				if time.Now().After(deadline) {
					t.Fatalf("the driver cell's 3 processes did not show: %v\n%s", procfs.WithEnv(env), p.stderr())
				}
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond) // into the measured phase
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			status := p.wait(t, 30*time.Second)
			if sig == syscall.SIGTERM && status != exitInterrupted {
				t.Errorf("after SIGTERM: exit %d, want %d (interrupted, its processes closed by lockbench)\n%s", status, exitInterrupted, p.stderr())
			}
			deadline = time.Now().Add(10 * time.Second)
			for {
				left := procfs.WithEnv(env)
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after %v of lockbench, driver processes %v are still running\n%s", sig, left, p.stderr())
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
