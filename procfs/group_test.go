package procfs_test

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"github.com/lockbench/lockbench/procfs"
)

// A child in a process group of its own, with an entry of its own in its
// environment, is found by either, and neither finds it once it is gone.
func TestGroupAndEnv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/environ is Linux's")
	}
	entry := "PROCFS_TEST_MARK=" + t.Name()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), entry)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep to run:", err)
	}
	pid := cmd.Process.Pid
	if got := procfs.Group(pid); !slices.Equal(got, []int{pid}) {
		t.Errorf("Group(%d) = %v, want [%d]", pid, got, pid)
	}
	if got := procfs.WithEnv(entry); !slices.Equal(got, []int{pid}) {
		t.Errorf("WithEnv(%q) = %v, want [%d]", entry, got, pid)
	}
	if got := procfs.Group(os.Getpid()); slices.Contains(got, pid) {
		t.Errorf("Group(this process's) = %v holds the child, which has a group of its own", got)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := procfs.Group(pid); len(got) != 0 {
		t.Errorf("Group(%d) = %v after the child was reaped", pid, got)
	}
	if got := procfs.WithEnv(entry); len(got) != 0 {
		t.Errorf("WithEnv = %v after the child was reaped", got)
	}
}
