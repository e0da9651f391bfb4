package procfs_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/procfs"
)

// This process, read as any other: running or sleeping, started, its
// command line the test binary's, its resident memory above zero.
func TestThisProcess(t *testing.T) {
	pid := os.Getpid()
	if s := procfs.State(pid); s != 'R' && s != 'S' {
		t.Errorf("State(self) = %q, want R or S", s)
	}
	if start, running := procfs.Start(pid); !running || (runtime.GOOS == "linux" && start == "") {
		t.Errorf("Start(self) = %q, %v; want a start time and running", start, running)
	}
	if cmd := procfs.Cmdline(pid); !strings.Contains(cmd, "procfs.test") {
		t.Errorf("Cmdline(self) = %q, want the test binary's", cmd)
	}
	if runtime.GOOS != "linux" {
		return
	}
	for _, field := range []string{"VmRSS", "VmHWM"} {
		if kib, ok := procfs.StatusKiB(0, field); !ok || kib <= 0 {
			t.Errorf("StatusKiB(self, %s) = %d, %v", field, kib, ok)
		}
		if kib, ok := procfs.StatusKiB(pid, field); !ok || kib <= 0 {
			t.Errorf("StatusKiB(%d, %s) = %d, %v", pid, field, kib, ok)
		}
	}
	if _, ok := procfs.StatusKiB(0, "NoSuchField"); ok {
		t.Error("StatusKiB found a field that does not exist")
	}
	if kib, ok := procfs.MemAvailableKiB(); !ok || kib <= 0 {
		t.Errorf("MemAvailableKiB() = %d, %v", kib, ok)
	}
}

// A process that does not exist has no state, start or command line.
func TestGoneProcess(t *testing.T) {
	const gone = 1 << 30 // above any pid_max
	if s := procfs.State(gone); s != 0 {
		t.Errorf("State = %q, want 0", s)
	}
	if _, running := procfs.Start(gone); running {
		t.Error("Start says a process that does not exist runs")
	}
	if cmd := procfs.Cmdline(gone); cmd != "" {
		t.Errorf("Cmdline = %q, want none", cmd)
	}
	if _, ok := procfs.StatusKiB(gone, "VmRSS"); ok {
		t.Error("StatusKiB read a process that does not exist")
	}
}

// Both ends of a loopback connection are this process's; a pid list
// without it has no owner.
func TestSocketOwner(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/net/tcp is Linux's")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local, remote := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
	if pid, err := procfs.SocketOwner(local, remote, []int{1 << 30, os.Getpid()}); err != nil || pid != os.Getpid() {
		t.Errorf("SocketOwner = %d, %v; want this process", pid, err)
	}
	if _, err := procfs.SocketOwner(local, remote, []int{1 << 30}); !errors.Is(err, procfs.ErrNoSocket) {
		t.Errorf("SocketOwner among others: %v, want ErrNoSocket", err)
	}
	if _, err := procfs.SocketOwner(remote, remote, []int{os.Getpid()}); !errors.Is(err, procfs.ErrNoSocket) {
		t.Errorf("SocketOwner of no socket: %v, want ErrNoSocket", err)
	}
}

// The load average is read where there is a /proc, and is not negative.
func TestLoadAverage(t *testing.T) {
	load, ok := procfs.LoadAverage()
	if _, err := os.Stat("/proc/loadavg"); err == nil && (!ok || load < 0) {
		t.Errorf("LoadAverage = %v, %v; want a load of 0 or more", load, ok)
	}
}

// Stopped tells a process SIGSTOP stopped from one running, every thread
// of it.
func TestStopped(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	if s, known := procfs.Stopped(pid); !known || s {
		t.Fatalf("a sleeping process: stopped %v, known %v; want false, true", s, known)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s, _ := procfs.Stopped(pid); !s && time.Now().Before(deadline); s, _ = procfs.Stopped(pid) {
		time.Sleep(time.Millisecond)
	}
	if s, known := procfs.Stopped(pid); !known || !s {
		t.Errorf("after SIGSTOP: stopped %v, known %v; want true, true", s, known)
	}
	if _, known := procfs.Stopped(1 << 30); known {
		t.Error("a process that does not exist is known")
	}
}

// CPU reads what getrusage (SelfCPU) says of this process, to /proc's
// 10 ms steps: after 200 ms of work on one thread both have grown alike.
func TestCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	before, ok := procfs.CPU(os.Getpid())
	if !ok {
		t.Fatal("CPU(self): no answer")
	}
	r0 := procfs.SelfCPU()
	for x, until := 0, time.Now().Add(200*time.Millisecond); time.Now().Before(until); x++ {
		_ = x * x
	}
	after, _ := procfs.CPU(os.Getpid())
	got, want := after-before, procfs.SelfCPU()-r0
	if d := got - want; d < -30*time.Millisecond || d > 30*time.Millisecond {
		t.Errorf("CPU grew by %v over the work, getrusage by %v", got, want)
	}
	if want < 50*time.Millisecond {
		t.Logf("only %v of CPU in 200 ms: a loaded machine", want)
	}
	if _, ok := procfs.CPU(1 << 30); ok {
		t.Error("CPU of a process that does not exist answered")
	}
}
