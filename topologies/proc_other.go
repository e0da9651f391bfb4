//go:build !linux

package topologies

import "syscall"

// childAttr puts the node in its own process group, so a terminal's Ctrl-C
// reaches lockbench alone and lockbench stops the node itself.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
