package driver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// A manifest's bare loop is its command with one argument swapped; one
// that names an argument the command lacks does not load, and a driver
// without one says so.
func TestBareCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(manifest string) error {
		if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "d", driver.ManifestFile), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := driver.Load(dir)
		return err
	}
	if err := write(`[{"name":"d","command":["node","driver.js","--form","x"],"bare":{"replace":"main.js","with":"bare.js"}}]`); !errors.Is(err, driver.ErrBadDriver) ||
		!strings.Contains(err.Error(), `"main.js"`) {
		t.Errorf("a bare loop replacing an argument the command lacks: %v", err)
	}
	if err := write(`[{"name":"d","command":["node","driver.js","--form","x"],"bare":{"replace":"driver.js","with":"bare.js"}}]`); err != nil {
		t.Fatal(err)
	}
	ms, _ := driver.Load(dir)
	if argv, err := ms[0].BareCommand(); err != nil || strings.Join(argv, " ") != "node bare.js --form x" || ms[0].Command[1] != "driver.js" {
		t.Errorf("BareCommand = %q, %v; the command after: %q", argv, err, ms[0].Command)
	}
	if err := write(`[{"name":"d","command":["node","driver.js"]}]`); err != nil {
		t.Fatal(err)
	}
	ms, _ = driver.Load(dir)
	if _, err := ms[0].BareCommand(); !errors.Is(err, driver.ErrNoBare) || !errors.Is(err, driver.ErrBadDriver) {
		t.Errorf("the bare loop of a manifest without one: %v, want ErrNoBare", err)
	}
}

// The bare loops of the repository's drivers (the Node, Python and Java
// harnesses) run the library on a real
// redis-server: cycles in their measured phase, its time and CPU, the
// acquires' median, the library named as init_ok names it; every lock
// released (no key left under the prefix). A form without one answers
// unsupported through the same path.
func TestBareLoopsRun(t *testing.T) {
	t.Parallel()
	ep := topotest.Endpoint(t)
	conn, err := clients.New(context.Background(), ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	known := drivertest.Repository(t)
	var bare []string
	for _, m := range known {
		if m.Bare != nil {
			bare = append(bare, m.Name)
		}
	}
	for _, want := range []string{"go-lua", "redis-py", "node-redlock", "redisson", "shedlock", "spring-redis-lock", "rslock", "rslock-using"} {
		if !slices.Contains(bare, want) {
			t.Errorf("%s has no bare loop (those with one: %v)", want, bare)
		}
	}
	load := driver.BareLoad{Clients: 4, Warmup: 300 * time.Millisecond, Duration: 700 * time.Millisecond}
	// Every bare loop but the other forms of a Java library (one JVM a
	// library shows its loop; each costs seconds of start-up).
	names := []string{"redisson-semaphore"}
	for _, name := range bare {
		if m, _ := driver.Find(known, name); m.Language != "java" || name == m.Library || name == "spring-redis-lock" {
			names = append(names, name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := driver.Find(known, name)
			if err != nil {
				t.Fatal(err)
			}
			prefix := "lockbench:bare-" + name + ":"
			cfg := driver.Config{Redis: driver.RedisOf(topologies.Access{Mode: topologies.ModeSingle, Endpoints: []topologies.Endpoint{ep}}),
				Prefix: prefix, Clients: load.Clients, TTL: 10 * time.Second, Limit: 1}
			r, err := driver.RunBare(context.Background(), m, cfg, load)
			if name == "redisson-semaphore" {
				if err == nil || !strings.Contains(err.Error(), "unsupported") {
					t.Errorf("the semaphore form's bare loop: %+v, %v; want unsupported", r, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// (a Node timer may fire a fraction of a millisecond before
			// the high-resolution clock says its time is up)
			if r.Cycles <= 0 || r.Elapsed < load.Duration*9/10 || r.CPU <= 0 || r.AcquireP50 <= 0 || r.Library != m.Library || r.Version == "" {
				t.Errorf("%+v", r)
			}
			// python-redis-lock's release leaves its waiters' signal list
			// behind for a second (signal_expire): not the lock
			var left []string
			if err := variants.ScanPrefix(context.Background(), conn, prefix, func(key string) error {
				if !strings.Contains(key, "lock-signal:") {
					left = append(left, key)
				}
				return nil
			}); err != nil || len(left) > 0 {
				t.Errorf("keys left under %s: %q (%v)", prefix, left, err)
			}
			t.Logf("%s %s: %.0f cycles/s, %.1f µs of CPU a cycle, acquire p50 %v", r.Library, r.Version, r.PerSecond(),
				float64(r.CPU.Microseconds())/float64(r.Cycles), r.AcquireP50)
		})
	}
}
