package clients_test

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// testTimeout bounds every test's Redis calls, so a stuck server fails the
// test instead of hanging it.
const testTimeout = 10 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// connect returns a client of lib to ep, closed when the test ends.
func connect(t *testing.T, ep topologies.Endpoint, lib string) clients.Client {
	t.Helper()
	c, err := clients.New(testContext(t), ep, clients.Options{Library: lib})
	if err != nil {
		t.Fatalf("clients.New(%s): %v", lib, err)
	}
	t.Cleanup(c.Close)
	return c
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) topologies.Endpoint {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return topologies.Endpoint{Addr: addr}
}

func TestDo(t *testing.T) {
	ep := topotest.Endpoint(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			c, ctx, p := connect(t, ep, lib), testContext(t), lib+":"
			// The steps run in order: later ones see what earlier ones set.
			steps := []struct {
				name string
				cmd  variants.Command
				want any
			}{
				{"SET", variants.Cmd("SET", p+"s", "hello"), "OK"},
				{"GET", variants.Cmd("GET", p+"s"), "hello"},
				{"INCR new key", variants.Cmd("INCR", p+"n"), int64(1)},
				{"INCR again", variants.Cmd("INCR", p+"n"), int64(2)},
				{"GET missing key is nil", variants.Cmd("GET", p+"missing"), nil},
				{"SET NX on existing key is nil", variants.Cmd("SET", p+"s", "other", "NX"), nil},
				{"SET NX left the value", variants.Cmd("GET", p+"s"), "hello"},
				{"SET NX on new key", variants.Cmd("SET", p+"t", "x", "NX", "PX", "10000"), "OK"},
				{"MGET with a missing key", variants.Command{Argv: []string{"MGET", p + "s", p + "missing"}, Keys: []int{1, 2}}, []any{"hello", nil}},
				{"PING has no key", variants.Bare("PING"), "PONG"},
			}
			for _, s := range steps {
				got, err := c.Do(ctx, s.cmd)
				if err != nil || !reflect.DeepEqual(got, s.want) {
					t.Errorf("%s: Do(%v) = %#v, %v; want %#v, nil", s.name, s.cmd.Argv, got, err, s.want)
				}
			}
		})
	}
}

func TestServerErrors(t *testing.T) {
	ep := topotest.Endpoint(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			c, ctx, p := connect(t, ep, lib), testContext(t), lib+":"
			if _, err := c.Do(ctx, variants.Cmd("SET", p+"s", "not a number")); err != nil {
				t.Fatal(err)
			}

			got, err := c.Do(ctx, variants.Cmd("INCR", p+"s"))
			var se *variants.ServerError
			if !errors.As(err, &se) {
				t.Fatalf("INCR on a string = %#v, %v (%T); want a *variants.ServerError", got, err, err)
			}
			// rueidis drops the reply's "ERR " code; go-redis keeps it.
			if !strings.Contains(se.Msg, "not an integer") {
				t.Errorf("ServerError.Msg = %q; want the server's reply", se.Msg)
			}
			if variants.IsNoScript(err) {
				t.Errorf("IsNoScript(%v) = true for a non-NOSCRIPT error", err)
			}

			const unknownSHA = "0123456789abcdef0123456789abcdef01234567"
			_, err = c.Do(ctx, variants.Bare("EVALSHA", unknownSHA, "0"))
			if !variants.IsNoScript(err) {
				t.Errorf("EVALSHA of an unknown script: err = %v; want NOSCRIPT", err)
			}
		})
	}
}

func TestDoMulti(t *testing.T) {
	ep := topotest.Endpoint(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			c, ctx, p := connect(t, ep, lib), testContext(t), lib+":"

			res := c.DoMulti(ctx,
				variants.Bare("MULTI"),
				variants.Cmd("SET", p+"k", "v"),
				variants.Cmd("GET", p+"k"),
				variants.Bare("EXEC"))
			want := []variants.Result{{Value: "OK"}, {Value: "QUEUED"}, {Value: "QUEUED"}, {Value: []any{"OK", "v"}}}
			if !reflect.DeepEqual(res, want) {
				t.Errorf("MULTI, SET, GET, EXEC = %#v; want %#v", res, want)
			}

			// Inside EXEC's array a nil reply is nil and an error reply is
			// a *ServerError, as at top level.
			res = c.DoMulti(ctx,
				variants.Bare("MULTI"),
				variants.Cmd("SET", p+"k", "not a number"),
				variants.Cmd("INCR", p+"k"),
				variants.Cmd("GET", p+"missing"),
				variants.Bare("EXEC"))
			for _, r := range res {
				if r.Err != nil {
					t.Fatalf("transaction: %v", r.Err)
				}
			}
			exec, ok := res[len(res)-1].Value.([]any)
			if !ok || len(exec) != 3 {
				t.Fatalf("EXEC = %#v; want an array of 3", res[len(res)-1].Value)
			}
			if exec[0] != "OK" || exec[2] != nil {
				t.Errorf("EXEC = %#v; want [OK, error, nil]", exec)
			}
			if _, ok := exec[1].(*variants.ServerError); !ok {
				t.Errorf("EXEC[1] = %#v (%T); want a *variants.ServerError", exec[1], exec[1])
			}
		})
	}
}

func TestDedicatedWatch(t *testing.T) {
	ep := topotest.Endpoint(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			c, ctx, p := connect(t, ep, lib), testContext(t), lib+":"
			key := p + "watched"
			if _, err := c.Do(ctx, variants.Cmd("SET", key, "original")); err != nil {
				t.Fatal(err)
			}

			transaction := func(d variants.Conn, change bool) any {
				t.Helper()
				if _, err := d.Do(ctx, variants.Cmd("WATCH", key)); err != nil {
					t.Fatal(err)
				}
				if change { // from another connection, after WATCH
					if _, err := c.Do(ctx, variants.Cmd("SET", key, "changed")); err != nil {
						t.Fatal(err)
					}
				}
				res := d.DoMulti(ctx, variants.Bare("MULTI"), variants.Cmd("SET", key, "mine"), variants.Bare("EXEC"))
				for _, r := range res {
					if r.Err != nil {
						t.Fatalf("MULTI/SET/EXEC: %v", r.Err)
					}
				}
				return res[2].Value
			}

			err := c.Dedicated(ctx, key, func(d variants.Conn) error {
				if got := transaction(d, true); got != nil {
					t.Errorf("EXEC after the watched key changed = %#v; want nil (aborted)", got)
				}
				if got, _ := c.Do(ctx, variants.Cmd("GET", key)); got != "changed" {
					t.Errorf("after the aborted EXEC the key holds %#v; want %q", got, "changed")
				}
				if got := transaction(d, false); !reflect.DeepEqual(got, []any{"OK"}) {
					t.Errorf("EXEC with the watched key unchanged = %#v; want [OK]", got)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("Dedicated: %v", err)
			}
			if got, _ := c.Do(ctx, variants.Cmd("GET", key)); got != "mine" {
				t.Errorf("after the EXEC the key holds %#v; want %q", got, "mine")
			}
		})
	}
}

func TestNewUnreachable(t *testing.T) {
	ep := closedPort(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			start := time.Now()
			c, err := clients.New(testContext(t), ep, clients.Options{Library: lib})
			took := time.Since(start)
			if err == nil {
				c.Close()
				t.Fatalf("New(%s) on a closed port succeeded", ep.Addr)
			}
			if !errors.Is(err, clients.ErrUnreachable) {
				t.Errorf("New on a closed port: %v; want ErrUnreachable", err)
			}
			if !strings.Contains(err.Error(), ep.Addr) {
				t.Errorf("error %q does not name the address %s", err, ep.Addr)
			}
			if limit := clients.ConnectTimeout + time.Second; took > limit {
				t.Errorf("New took %v; want under %v", took, limit)
			}
		})
	}
}

func TestNewUnknownLibrary(t *testing.T) {
	_, err := clients.New(testContext(t), closedPort(t), clients.Options{Library: "jedis"})
	if !errors.Is(err, clients.ErrUnknown) {
		t.Fatalf("New(jedis) = %v; want ErrUnknown", err)
	}
	for _, lib := range clients.Names {
		if !strings.Contains(err.Error(), lib) {
			t.Errorf("error %q does not list the known library %s", err, lib)
		}
		if err := clients.Check(lib); err != nil {
			t.Errorf("Check(%s) = %v", lib, err)
		}
	}
}

func TestCounted(t *testing.T) {
	ep := topotest.Endpoint(t)
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			c, ctx, p := connect(t, ep, lib), testContext(t), lib+":"
			counted := variants.NewCounted(c)
			check := func(step string, want int64) {
				t.Helper()
				if got := counted.Commands(); got != want {
					t.Errorf("after %s: Commands() = %d; want %d", step, got, want)
				}
			}
			check("nothing", 0)

			if _, err := counted.Do(ctx, variants.Cmd("SET", p+"k", "v")); err != nil {
				t.Fatal(err)
			}
			check("Do", 1)

			counted.DoMulti(ctx, variants.Bare("MULTI"), variants.Cmd("GET", p+"k"), variants.Cmd("DEL", p+"k"), variants.Bare("EXEC"))
			check("DoMulti of 4", 5)

			err := counted.Dedicated(ctx, p+"k", func(d variants.Conn) error {
				if _, err := d.Do(ctx, variants.Cmd("WATCH", p+"k")); err != nil {
					return err
				}
				d.DoMulti(ctx, variants.Bare("MULTI"), variants.Cmd("SET", p+"k", "w"), variants.Bare("EXEC"))
				return d.Dedicated(ctx, p+"k", func(d variants.Conn) error {
					_, err := d.Do(ctx, variants.Cmd("GET", p+"k"))
					return err
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			check("Dedicated with 5 commands", 10)

			if _, err := counted.Do(ctx, variants.Cmd("INCR", p+"k")); err == nil {
				t.Fatal("INCR on a string succeeded")
			}
			check("a command that failed", 11)
		})
	}
}
