//go:build !linux

package topologies

import "syscall"

// childAttr puts the node in its own process group, so a terminal's Ctrl-C
// reaches lockbench alone and lockbench stops the node itself. A detached
// node gets its own session and outlives lockbench (lockbench topology up).
func childAttr(detached bool) *syscall.SysProcAttr {
	if detached {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}
