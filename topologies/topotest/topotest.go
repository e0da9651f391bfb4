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

// Local starts a redis-server on a free loopback port for the test and
// stops it when the test ends.
func Local(tb testing.TB) *topologies.Local {
	tb.Helper()
	l, err := topologies.StartLocal(context.Background(), "")
	if errors.Is(err, topologies.ErrNoRedisServer) {
		tb.Fatalf("this test needs a real redis-server: %v (or run `make test`, which installs it)", err)
	}
	if err != nil {
		tb.Fatalf("start redis-server: %v", err)
	}
	tb.Cleanup(func() {
		if err := l.Close(); err != nil {
			tb.Errorf("stop redis-server: %v", err)
		}
	})
	return l
}

// Endpoint starts a redis-server for the test and returns its endpoint.
func Endpoint(tb testing.TB) topologies.Endpoint {
	tb.Helper()
	return Local(tb).Endpoints()[0]
}
