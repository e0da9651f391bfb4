// Package topotest starts real Redis servers for tests, through the
// project's own topology code, the way net/http/httptest starts servers.
// A test that needs redis-server fails with a message saying how to install
// it; it never passes silently without one.
package topotest

import (
	"context"
	"errors"
	"testing"

	"github.com/lockbench/lockbench/topologies"
)

// Start starts the local topology called name (local, local:cluster, ...)
// for the test and stops it when the test ends.
func Start(tb testing.TB, name string) *topologies.Local {
	tb.Helper()
	return StartOn(tb, name, "")
}

// StartOn starts the local topology called name on the server binary
// server (redis, valkey or a path: topologies.ServerBinary; "" is
// redis-server) for the test and stops it when the test ends.
func StartOn(tb testing.TB, name, server string) *topologies.Local {
	tb.Helper()
	l, err := topologies.StartLocal(context.Background(), topologies.Spec{Name: name, RedisServer: server})
	if errors.Is(err, topologies.ErrNoRedisServer) {
		tb.Fatalf("this test needs a real server: %v (or run `make test`, which installs it)", err)
	}
	if err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if err := l.Close(); err != nil {
			tb.Errorf("stop %s: %v", name, err)
		}
	})
	return l
}

// Local starts a single redis-server for the test.
func Local(tb testing.TB) *topologies.Local { return Start(tb, "local") }

// Endpoint starts a single redis-server for the test and returns its
// endpoint.
func Endpoint(tb testing.TB) topologies.Endpoint {
	tb.Helper()
	return Local(tb).Access().Endpoints[0]
}

// Faulted marks a test that faults the servers it starts: pauses, kills,
// restarts, failovers, partitions and other network faults, clock jumps,
// or processes killed and signalled. The quick tier, go test -short
// (make test-short), skips such tests; every other test runs in it.
func Faulted(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("faults the servers it starts: skipped under -short (make test runs it)")
	}
}

// NeedServer fails the test, saying what to install, unless the server
// binary server names (redis, valkey or a path) is there.
func NeedServer(tb testing.TB, server string) {
	tb.Helper()
	if _, err := topologies.ServerBinary(server); err != nil {
		tb.Fatalf("this test needs %s: %v (or run `make test`, which installs it)", server, err)
	}
}
