//go:build !linux

package topologies

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// childAttr puts the node in its own process group, so a terminal's Ctrl-C
// reaches lockbench alone and lockbench stops the node itself. A detached
// node gets its own session and outlives lockbench (lockbench topology up).
func childAttr(detached bool) *syscall.SysProcAttr {
	if detached {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}

// cmdline is the command line of process pid as ps shows it; "" when the
// process is gone or is a zombie.
func cmdline(pid int) string {
	out, err := exec.Command("ps", "-o", "stat=,command=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return ""
	}
	state, cmd, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if strings.HasPrefix(state, "Z") {
		return ""
	}
	return strings.TrimSpace(cmd)
}

// ProcessState is the state letter of process pid as ps shows it (R, S, T
// stopped, ...); 0 when it cannot be had.
func ProcessState(pid int) byte {
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	if s := strings.TrimSpace(string(out)); err == nil && s != "" {
		return s[0]
	}
	return 0
}
