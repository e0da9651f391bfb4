package topologies

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// standIn writes an executable shell script called name into a temp
// directory and returns its path.
func standIn(t *testing.T, name, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServerBinaryAsksVersion: a binary that is not Redis or Valkey is
// refused before any node starts, as bad input in one line naming the
// path and what it answered to --version: coreutils' true and yes, a
// binary that answers nothing, and one that never exits (refused at the
// deadline, its whole process group killed). Redis and Valkey pass.
func TestServerBinaryAsksVersion(t *testing.T) {
	for _, server := range []string{ServerRedis, ServerValkey} {
		if _, err := ServerBinary(server); err != nil {
			t.Errorf("ServerBinary(%s): %v", server, err)
		}
	}
	cases := []struct{ path, said string }{
		{"/bin/true", `answered "true (GNU coreutils)`},
		{"/usr/bin/yes", `answered "yes (GNU coreutils)`},
		{standIn(t, "silent", "exit 0\n"), "answered nothing"},
		{standIn(t, "hangs", "echo starting; sleep 30 & wait\n"), `did not answer within 1s (it said "starting")`},
	}
	for _, tc := range cases {
		_, err := ServerBinary(tc.path)
		if !errors.Is(err, ErrNotAServer) || strings.Contains(err.Error(), "\n") ||
			!strings.HasPrefix(err.Error(), tc.path+" is not a Redis or Valkey server") || !strings.Contains(err.Error(), tc.said) {
			t.Errorf("ServerBinary(%s): %v; want ErrNotAServer in one line naming it and saying %s", tc.path, err, tc.said)
		}
	}
}

// TestNodeLogBounded: a server that writes without end (a stand-in that
// answers --version as Redis does, then floods its output with 24 MiB and
// exits) leaves a log of at most two segments, whose current file says
// how much was dropped. Before logs were bounded, the whole flood was
// kept.
func TestNodeLogBounded(t *testing.T) {
	flood := standIn(t, "flooding-server", `case "$1" in --version) echo "Redis server v=7.0.15 sha=0 malloc=libc bits=64 build=0"; exit 0;; esac
head -c 25165824 /dev/zero
exit 1
`)
	_, err := startNode(testContext(t, 20*time.Second), nodeConfig{bin: flood})
	if !errors.Is(err, ErrStart) {
		t.Fatalf("startNode of a flooding stand-in: %v; want ErrStart", err)
	}
	logFile := keptLog(t, err)
	var total int64
	for _, name := range []string{logFile, logFile + ".1"} {
		info, err := os.Stat(name)
		if err != nil {
			t.Fatalf("%v (a log past its segment has both files)", err)
		}
		total += info.Size()
	}
	if total > 2*logSegment+4096 {
		t.Errorf("the node's log holds %d bytes; want at most two segments of %d", total, logSegment)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "lockbench: this log is kept to its last") || !strings.Contains(string(b), " bytes dropped so far") {
		t.Errorf("the log begins %q; want the line saying what was dropped", string(b[:min(len(b), 200)]))
	}
}
