package runner

import (
	"errors"
	"math/rand/v2"
	"os/exec"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// A driver process of a cell with client clocks runs under the clock
// shim: redis-py's python reads its client's offset once that client is
// made (a second client on it shares that clock), and the jump moves it at
// its time; go-lua (Go reads the clock
// through the vDSO, past the shim) is refused, naming why. Before, a
// driver ran on the machine's clock whatever the flags said.
func TestDriverClocks(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import redis").Run(); err != nil {
		t.Fatalf("/usr/bin/python3 cannot import redis (%v): run make drivers", err)
	}
	redis, err := topologies.StartLocal(t.Context(), topologies.Spec{Name: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer redis.Close()
	known := drivertest.Repository(t)
	golua, err := driver.Load(drivertest.DriversDir(t)) // built from this source
	if err != nil {
		t.Fatal(err)
	}
	known = append(golua, known...)
	jump := workloads.Jump{By: 20 * time.Second, At: 300 * time.Millisecond}
	clocks := workloads.Clocks{Skew: workloads.Skew{Min: 30 * time.Second, Max: 30 * time.Second}, Jumps: []workloads.Jump{jump}}
	start := func(name string) (*driverClocks, *driver.Process, *workloads.Clock) {
		dc, err := newDriverClocks(workloads.Spec{Clocks: clocks}, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(dc.close)
		p, err := driver.Start(t.Context(), mustFind(t, known, name), driver.Config{Redis: driver.RedisOf(redis.Access()), Prefix: "lockbench:clock:", Clock: dc.of(0)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return dc, p, clocks.NewClock(rand.New(rand.NewPCG(1, 2)), time.Now())
	}

	dc, p, clock := start("redis-py")
	if err := dc.client(0, p.Client(0), clock); err != nil {
		t.Fatalf("redis-py: %v", err)
	}
	if read := offsetOf(t, p); (read - 30*time.Second).Abs() > driver.ClockSlack {
		t.Errorf("redis-py reads %v from lockbench's clock before the jump; want +30s", read)
	}
	// a second client of the process has its clock, whatever it drew
	second := workloads.Clocks{Skew: workloads.Skew{Min: 5 * time.Second, Max: 5 * time.Second}}.NewClock(rand.New(rand.NewPCG(3, 4)), time.Now())
	if err := dc.client(0, p.Client(1), second); err != nil || second.Offset() != 30*time.Second {
		t.Errorf("a second client on the process: %v, offset %v; want its process's +30s", err, second.Offset())
	}
	// the jump is the mechanism: wait for its time, then for it to show
	deadline := time.Now().Add(30 * time.Second)
	for read := offsetOf(t, p); (read - 50*time.Second).Abs() > driver.ClockSlack; read = offsetOf(t, p) {
		if time.Now().After(deadline) {
			t.Fatalf("redis-py reads %v from lockbench's clock 30 s after a +20s jump at 300ms; want +50s", read)
		}
		time.Sleep(50 * time.Millisecond)
	}

	dc, p, clock = start("go-lua")
	if err := dc.client(0, p.Client(0), clock); !errors.Is(err, ErrClockNotReached) {
		t.Errorf("go-lua: %v; want ErrClockNotReached", err)
	}
}

func offsetOf(t *testing.T, p *driver.Process) time.Duration {
	t.Helper()
	read, err := p.Client(0).ClockOffset(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return read
}

func mustFind(t *testing.T, known []driver.Manifest, name string) driver.Manifest {
	t.Helper()
	m, err := driver.Find(known, name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
