package runner_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// libraryLocks are the variants that wrap a third-party lock library.
var libraryLocks = []string{"redsync", "redislock", "rueidislock"}

// dbSize is the number of keys on the server at ep.
func dbSize(t *testing.T, ep topologies.Endpoint, lib string) int64 {
	t.Helper()
	c, err := clients.New(context.Background(), ep, clients.Options{Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.Do(context.Background(), variants.Bare("DBSIZE"))
	if err != nil {
		t.Fatal(err)
	}
	size, _ := n.(int64)
	return size
}

// contended is the short contended run of the library tests: 16 clients
// on one key, 1ms holds.
func contended(t *testing.T, p plan.Plan) plan.Plan {
	p.Clients = []int{16}
	p.Workload = workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: 700 * time.Millisecond, Warmup: 100 * time.Millisecond}
	return p
}

// Each library lock keeps mutual exclusion under contention on every
// client library it runs on, with the run's TTL and retry as with its own
// defaults; its commands are counted client side, and the record says
// which settings it used.
func TestLibraryLocksContended(t *testing.T) {
	for _, lib := range clients.Names {
		for _, given := range []bool{false, true} {
			name := lib + "/library-defaults"
			if given {
				name = lib + "/run-settings"
			}
			t.Run(name, func(t *testing.T) {
				var locks []string
				for _, v := range libraryLocks {
					if info, err := variants.Lookup(v); err != nil || info.RunsOn(lib) {
						locks = append(locks, v)
					}
				}
				p := contended(t, plan.Plan{Variants: locks, Client: lib})
				if given {
					retry, _ := variants.ParseRetry("exp:1ms-20ms")
					p.TTL, p.Retry = 3*time.Second, retry
				}
				rec := runPlan(t, p)
				for _, c := range rec.Cells {
					if c.Acquisitions == 0 || c.Violations.Overlaps != 0 || c.Violations.LostUpdates != 0 {
						t.Errorf("%s: %d acquisitions, %d overlaps, %d lost updates; want some, 0, 0",
							c.Variant, c.Acquisitions, c.Violations.Overlaps, c.Violations.LostUpdates)
					}
					if c.Commands == 0 || c.Server == nil || c.Server.CommandsPerAcquisition < c.CommandsPerAcquisition {
						t.Errorf("%s: %d commands counted client side, server cost %+v; want both, the server's no fewer",
							c.Variant, c.Commands, c.Server)
					}
					wants := []string{"library defaults"}
					if given {
						wants = []string{"3s (--ttl)", "exp:1ms-20ms (--retry)"}
					}
					for _, w := range wants {
						if !strings.Contains(c.Settings, w) {
							t.Errorf("%s: settings %q do not say %q", c.Variant, c.Settings, w)
						}
					}
				}
			})
		}
	}
}

// redsync takes one pool per independent master: Redlock through the
// library.
func TestRedsyncOnIndependentMasters(t *testing.T) {
	t.Parallel() // counted, not timed: on masters of its own beside the other parallel tests
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			p := contended(t, plan.Plan{Variants: []string{"redsync"}, Client: lib})
			// 300 acquisitions or 10 s rather than 700 ms: on a loaded
			// machine the votes of 16 clients split again and again, each
			// loser retrying 50-250 ms later, and a timed cell may end
			// before one wins. redsync retries inside an acquisition, so
			// each acquisition started is one taken.
			p.Workload.Ops, p.Workload.Duration = 300, 10*time.Second
			p.Topology = topologies.Spec{Name: "local:redlock?nodes=3"}
			rec := runPlanOn(t, p.Topology, p)
			c := rec.Cells[0]
			if rec.Topology.Mode != string(topologies.ModeIndependent) {
				t.Fatalf("topology mode %q; want independent", rec.Topology.Mode)
			}
			if c.Acquisitions == 0 || c.Violations.Overlaps != 0 || c.Errors != 0 {
				t.Errorf("redsync on 3 masters: %d acquisitions, %d overlaps, %d errors; want some, 0, 0",
					c.Acquisitions, c.Violations.Overlaps, c.Errors)
			}
			// A try sends SET NX to all three masters.
			if c.Commands < 3*c.Attempts {
				t.Errorf("%d commands for %d tries; want at least 3 per try", c.Commands, c.Attempts)
			}
		})
	}
}

// A variant on a client library it does not run on is refused before
// anything runs, naming the libraries it runs on.
func TestLibraryLockOnWrongClient(t *testing.T) {
	for _, tc := range []struct{ variant, client, runsOn string }{
		{"redislock", "rueidis", "go-redis"},
		{"rueidislock", "go-redis", "rueidis"},
	} {
		p := plan.Plan{Variants: []string{tc.variant}, Clients: []int{1}, Client: tc.client,
			Workload: workloads.Spec{Keys: 1, Hold: dist(t, "1ms"), Duration: time.Second}}
		err := p.WithDefaults().Validate()
		if !errors.Is(err, plan.ErrClient) || !errors.Is(err, plan.ErrInvalid) || !strings.Contains(err.Error(), tc.variant) || !strings.Contains(err.Error(), tc.runsOn) {
			t.Errorf("%s on %s: %v; want ErrClient naming %s and %s", tc.variant, tc.client, err, tc.variant, tc.runsOn)
		}
	}
}
