package topologies

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// childAttr makes the kernel kill a node when lockbench dies, however it
// dies, so no redis-server outlives a run. A detached node gets its own
// session instead and outlives lockbench (lockbench topology up).
func childAttr(detached bool) *syscall.SysProcAttr {
	if detached {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// cmdline is the command line of process pid, arguments joined by spaces
// (redis-server rewrites it to "redis-server 127.0.0.1:port"); "" when
// the process is gone or is a zombie.
func cmdline(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The state follows the command name, which is in parentheses.
	if i := strings.LastIndexByte(string(stat), ')'); i < 0 || strings.HasPrefix(string(stat[i+1:]), " Z") {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// ProcessState is the state letter of process pid (R running, S sleeping, T
// stopped, ...), from /proc; 0 when it cannot be read.
func ProcessState(pid int) byte {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || len(stat) < i+3 {
		return 0
	}
	return stat[i+2]
}
