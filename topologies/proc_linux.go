package topologies

import "syscall"

// childAttr makes the kernel kill a node when lockbench dies, however it
// dies, so no redis-server outlives a run. A detached node gets its own
// session instead and outlives lockbench (lockbench topology up).
func childAttr(detached bool) *syscall.SysProcAttr {
	if detached {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
