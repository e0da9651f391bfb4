package topologies

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain fails the package when a redis-server that this test binary
// started outlives the tests. Every node is a direct child of the process
// that starts it (no shell in between, and a detached node stays our child
// until we exit), so the children of this process are all there is to
// check.
func TestMain(m *testing.M) {
	code := m.Run()
	if left := leftoverServers(2 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: redis-server processes still running after the tests: %s\n", strings.Join(left, "; "))
		code = 1
	}
	os.Exit(code)
}

// leftoverServers lists the live redis-server children of this process,
// waiting up to grace for ones that are exiting.
func leftoverServers(grace time.Duration) []string {
	deadline := time.Now().Add(grace)
	for {
		left := redisChildren()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// redisChildren reads /proc for children of this process named
// redis-server or valkey-server that are not zombies. Without /proc there is nothing to
// check.
func redisChildren() []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	self := os.Getpid()
	var found []string
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		stat := string(b)
		open, closing := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
		if open < 0 || closing < open {
			continue
		}
		comm := stat[open+1 : closing]
		// After the name: state, ppid, ...
		fields := strings.Fields(stat[closing+1:])
		if len(fields) < 2 || (comm != "redis-server" && comm != "valkey-server") || fields[0] == "Z" {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == self {
			pid := strings.Fields(stat)[0]
			found = append(found, fmt.Sprintf("pid %s: %s", pid, cmdline(mustAtoi(pid))))
		}
	}
	return found
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// faulted marks a test that faults the nodes it starts (topotest.Faulted,
// which this package's own tests cannot import): go test -short skips it.
func faulted(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("faults the servers it starts: skipped under -short (make test runs it)")
	}
}
