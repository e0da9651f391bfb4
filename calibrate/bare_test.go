package calibrate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/calibrate"
	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// bareConns connects every client library to one local redis-server.
func bareConns(t *testing.T) map[string]clients.Client {
	t.Helper()
	ep := topotest.Endpoint(t)
	conns := map[string]clients.Client{}
	for _, lib := range clients.Names {
		c, err := clients.New(t.Context(), ep, clients.Options{Library: lib})
		if err != nil {
			t.Fatalf("connect %s: %v", lib, err)
		}
		t.Cleanup(c.Close)
		conns[lib] = c
	}
	return conns
}

// keysUnder counts the keys under prefix.
func keysUnder(t *testing.T, conn variants.Conn, prefix string) int {
	t.Helper()
	n := 0
	if err := variants.ScanPrefix(t.Context(), conn, prefix, func(string) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// A bare loop with Ops runs exactly that many cycles over its clients,
// with either release, and leaves no key behind.
func TestBareLoopOps(t *testing.T) {
	for lib, conn := range bareConns(t) {
		for _, release := range []calibrate.BareRelease{calibrate.BareDel, calibrate.BareCompareAndDelete} {
			prefix := "lbtest:bare:" + lib + ":"
			out, err := calibrate.BareLoop(t.Context(), conn, calibrate.BareSpec{Clients: 4, Prefix: prefix, Release: release, Ops: 1001})
			if err != nil {
				t.Fatalf("%s, release %d: %v", lib, release, err)
			}
			if out.Cycles != 1001 || out.WarmupCycles != 0 || out.Elapsed <= 0 {
				t.Errorf("%s, release %d: %+v, want 1001 cycles, none in warm-up, some time", lib, release, out)
			}
			if n := keysUnder(t, conn, prefix); n != 0 {
				t.Errorf("%s, release %d: %d keys left under %s", lib, release, n, prefix)
			}
		}
	}
}

// A bare loop by duration counts the cycles after its warm-up apart from
// those in it, and ends the cycles in flight: no key is left set.
func TestBareLoopDuration(t *testing.T) {
	for lib, conn := range bareConns(t) {
		prefix := "lbtest:bare:duration:" + lib + ":"
		spec := calibrate.BareSpec{Clients: 3, Prefix: prefix, Warmup: 100 * time.Millisecond, Duration: 200 * time.Millisecond}
		out, err := calibrate.BareLoop(t.Context(), conn, spec)
		if err != nil {
			t.Fatalf("%s: %v", lib, err)
		}
		if out.Cycles <= 0 || out.WarmupCycles <= 0 || out.Elapsed < spec.Duration {
			t.Errorf("%s: %+v, want cycles in both phases and at least %v measured", lib, out, spec.Duration)
		}
		if got, want := out.PerSecond(), float64(out.Cycles)/out.Elapsed.Seconds(); got != want {
			t.Errorf("%s: PerSecond %v, want %v", lib, got, want)
		}
		if n := keysUnder(t, conn, prefix); n != 0 {
			t.Errorf("%s: %d keys left under %s", lib, n, prefix)
		}
	}
}

// The bare cycle is uncontended: a key someone else holds is an error the
// loop returns, not a retry.
func TestBareLoopKeyTaken(t *testing.T) {
	for lib, conn := range bareConns(t) {
		prefix := "lbtest:bare:taken:" + lib + ":"
		if _, err := conn.Do(t.Context(), variants.Cmd("SET", prefix+"0", "another", "PX", "10000")); err != nil {
			t.Fatal(err)
		}
		_, err := calibrate.BareLoop(t.Context(), conn, calibrate.BareSpec{Prefix: prefix, Ops: 10})
		if !errors.Is(err, calibrate.ErrBareCycle) || !strings.Contains(err.Error(), prefix+"0") {
			t.Errorf("%s: %v, want ErrBareCycle naming the key", lib, err)
		}
		if _, err := conn.Do(t.Context(), variants.Cmd("DEL", prefix+"0")); err != nil {
			t.Fatal(err)
		}
	}
}

// A bare loop needs a library's client of its own: a dedicated
// connection has none, and neither a duration nor cycles is no load.
func TestBareLoopRefuses(t *testing.T) {
	for lib, conn := range bareConns(t) {
		err := conn.Dedicated(t.Context(), "lbtest:bare:dedicated", func(d variants.Conn) error {
			_, err := calibrate.BareLoop(t.Context(), d, calibrate.BareSpec{Ops: 1})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "dedicated") {
			t.Errorf("%s: bare loop on a dedicated connection: %v, want a refusal", lib, err)
		}
		if _, err := calibrate.BareLoop(t.Context(), conn, calibrate.BareSpec{}); err == nil {
			t.Errorf("%s: bare loop with no duration and no cycles: no error", lib)
		}
	}
}

// Cancelling the loop's context ends it with the context's error.
func TestBareLoopCancelled(t *testing.T) {
	conn := bareConns(t)[clients.Names[0]]
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := calibrate.BareLoop(ctx, conn, calibrate.BareSpec{Prefix: "lbtest:bare:cancel:", Duration: time.Hour})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
		t.Errorf("after %v: %v, want the context's deadline", time.Since(start), err)
	}
}
