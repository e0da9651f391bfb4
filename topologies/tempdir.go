package topologies

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/lockbench/lockbench/cpubudget"
	"github.com/lockbench/lockbench/procfs"
)

// A node's temp directory (its config and log) is named after the process
// that made it, lockbench-redis-p<pid>-<random>, and holds two marks: the
// owner file, that process's pid and start time, and the server file, the
// same of the redis-server last started in it. A run killed with SIGKILL
// cannot remove its directories; the next lockbench that starts a node
// removes those whose owner and server are both gone (RemoveStaleDirs).
// The start time tells a process from a later one that got its pid: a
// directory is live while the very process that marked it runs. A
// detached node (lockbench topology up) outlives its owner: its directory
// lives as long as its server.
const (
	nodeDirPrefix = "lockbench-redis-p"
	ownerFile     = "owner"
	serverFile    = "server"
)

// staleSwept makes a process remove stale directories once, before its
// first node.
var staleSwept sync.Once

// newNodeDir creates a node's temp directory, marked as this process's.
func newNodeDir() (string, error) {
	staleSwept.Do(func() {
		_, _ = RemoveStaleDirs()
		_, _ = cpubudget.RemoveStale()
	})
	dir, err := os.MkdirTemp("", nodeDirPrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return "", err
	}
	if err := writeMark(dir, ownerFile, os.Getpid()); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// writeMark writes the pid and start time of process pid into dir/name.
func writeMark(dir, name string, pid int) error {
	start, _ := processStart(pid)
	return os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("%d %s\n", pid, start)), 0o600)
}

// markLive reports whether the process a mark in dir names still runs.
// A mark not written yet (a directory being made) counts as live when the
// pid in the directory's name runs.
func markLive(dir, name string, namePID int) bool {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		if name == ownerFile && namePID > 0 {
			_, alive := processStart(namePID)
			return alive
		}
		return false
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 0 {
		return false
	}
	start, alive := processStart(pid)
	if len(fields) > 1 && start != "" && start != fields[1] {
		return false // another process got the pid
	}
	return alive
}

// RemoveStaleDirs removes the node directories in os.TempDir() left by
// lockbench processes that are gone (killed with SIGKILL), keeping every
// directory whose owner or redis-server still runs, and returns the ones
// it removed. Directories named otherwise (an older lockbench's
// lockbench-redis-<random>) are left alone: nothing says whose they are.
func RemoveStaleDirs() ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), nodeDirPrefix+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var firstErr error
	for _, dir := range dirs {
		name := strings.TrimPrefix(filepath.Base(dir), nodeDirPrefix)
		digits, _, ok := strings.Cut(name, "-")
		pid, err := strconv.Atoi(digits)
		if !ok || err != nil {
			continue
		}
		if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
			continue
		}
		if markLive(dir, ownerFile, pid) || markLive(dir, serverFile, 0) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("topologies: remove stale %s: %w", dir, err)
			}
			continue
		}
		removed = append(removed, dir)
	}
	return removed, firstErr
}

// processStart returns the start time of process pid and whether it
// runs; a zombie does not (procfs.Start).
func processStart(pid int) (string, bool) { return procfs.Start(pid) }

// cmdline is the command line of process pid; "" when the process is gone
// or is a zombie (procfs.Cmdline).
func cmdline(pid int) string { return procfs.Cmdline(pid) }

// ProcessState is the state letter of process pid (R running, S sleeping, T
// stopped, ...), from /proc or, where there is none, ps; 0 when it cannot
// be had.
func ProcessState(pid int) byte { return procfs.State(pid) }
