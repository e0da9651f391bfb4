package topologies

import "syscall"

// childAttr makes the kernel kill a node when lockbench dies, however it
// dies, so no redis-server outlives a run.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
