package driver_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// TestMain fails the package's tests when a goroutine they started
// outlives them, and removes the drivers they built.
func TestMain(m *testing.M) { os.Exit(drivertest.Main(m)) }

// prefix is the key prefix of the tests' drivers.
const prefix = "lockbench:drivertest:"

// config is a driver's config on a redis-server of the test's own.
func config(t *testing.T) driver.Config {
	t.Helper()
	return driver.Config{
		Redis: driver.RedisOf(topotest.Local(t).Access()), Prefix: prefix, Clients: 4,
		AcquireTimeout: 2 * time.Second, Margin: 10 * time.Second,
	}
}

// start starts the driver of m and closes it when the test ends, checking
// that nothing of its process group is left.
func start(t *testing.T, m driver.Manifest, cfg driver.Config) *driver.Process {
	t.Helper()
	p, err := driver.Start(context.Background(), m, cfg)
	if err != nil {
		t.Fatalf("start %s: %v", m.Name, err)
	}
	t.Cleanup(func() {
		_ = p.Close()
		noneLeft(t, p.PID())
	})
	return p
}

// noneLeft fails the test when a process of group pgid is still running.
func noneLeft(t *testing.T, pgid int) {
	t.Helper()
	if left := procfs.Group(pgid); len(left) > 0 {
		t.Errorf("processes of the driver's group %d are still running: %v", pgid, left)
	}
}

// key is the lock name's key under the prefix.
func key(name string) string { return prefix + name }
