package runner

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
)

// Client i of a driver cell is on process i mod n: each process serves
// its share, the first ones one more when they do not divide evenly.
func TestClientsOf(t *testing.T) {
	for _, tc := range []struct{ n, clients int }{{1, 16}, {4, 4}, {4, 6}, {3, 16}, {5, 5}} {
		total := 0
		for i := range tc.n {
			want := 0
			for c := range tc.clients {
				if c%tc.n == i {
					want++
				}
			}
			if got := clientsOf(i, tc.n, tc.clients); got != want {
				t.Errorf("%d clients on %d processes: process %d serves %d, want %d", tc.clients, tc.n, i, got, want)
			}
			total += want
		}
		if total != tc.clients {
			t.Errorf("%d clients on %d processes: %d served", tc.clients, tc.n, total)
		}
	}
}

// A driver that does not serve the topology's mode, or is no semaphore
// when the plan asks for one, fails its cell with the reason.
func TestDriverSupports(t *testing.T) {
	info := driver.Info{Library: "lib", Version: "1", Capabilities: wire.Capabilities{Modes: []string{wire.ModeSingle}}}
	single := topologies.Access{Mode: topologies.ModeSingle, Endpoints: []topologies.Endpoint{{Addr: "127.0.0.1:1"}}}
	cluster := topologies.Access{Mode: topologies.ModeCluster, Endpoints: []topologies.Endpoint{{Addr: "127.0.0.1:1"}}}
	lock, sem, interrupted := plan.Plan{Limit: 1}, plan.Plan{Limit: 3}, plan.Plan{Limit: 1, InterruptRelease: true}
	if err := supports(info, single, lock); err != nil {
		t.Errorf("single, a lock: %v", err)
	}
	if err := supports(info, cluster, lock); err == nil || !strings.Contains(err.Error(), "does not serve Redis mode cluster (it serves single)") {
		t.Errorf("cluster: %v", err)
	}
	if err := supports(info, single, sem); err == nil || !strings.Contains(err.Error(), "no semaphore") {
		t.Errorf("a limit of 3: %v", err)
	}
	if err := supports(info, single, interrupted); err == nil || !strings.Contains(err.Error(), "no interrupt capability") {
		t.Errorf("interrupted releases: %v", err)
	}
	info.Capabilities.Semaphore, info.Capabilities.Interrupt = true, true
	if err := supports(info, single, sem); err != nil {
		t.Errorf("a semaphore, a limit of 3: %v", err)
	}
	if err := supports(info, single, interrupted); err != nil {
		t.Errorf("interrupted releases with the capability: %v", err)
	}
}
