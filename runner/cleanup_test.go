package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// keysOn counts the keys under prefix on each master of topo, asked
// directly.
func keysOn(t *testing.T, topo topologies.Topology, library, prefix string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, n := range topo.Nodes() {
		if n.Role != topologies.RoleMaster {
			continue
		}
		c, err := clients.New(context.Background(), n.Endpoint, clients.Options{Library: library})
		if err != nil {
			t.Fatal(err)
		}
		err = variants.ScanPrefix(context.Background(), c, prefix, func(string) error { counts[n.Name]++; return nil })
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return counts
}

// On a cluster the run's keys go from every master, found by asking the
// cluster, and no other key goes.
func TestCleanupCluster(t *testing.T) {
	t.Parallel() // counted, not timed: on a server of its own beside the other parallel tests
	topo := topotest.Start(t, "local:cluster?masters=3")
	for _, lib := range clients.Names {
		t.Run(lib, func(t *testing.T) {
			ctx := context.Background()
			conns, err := clients.Connect(ctx, topo.Access(), clients.Options{Library: lib})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			prefix, other := "lbtest:cleanup-"+lib+":", "lbtest:keep-"+lib+":"
			const keys = 30
			for i := range keys {
				for _, p := range []string{prefix, other} {
					if _, err := conns[0].Do(ctx, variants.Cmd("SET", fmt.Sprintf("%sk%d", p, i), "v")); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := keysOn(t, topo, lib, prefix)
			if len(before) < 2 {
				t.Fatalf("the run's keys are on %v; want them spread over the masters", before)
			}
			// Only the first seed: the other masters are found by asking.
			access := topo.Access()
			access.Endpoints = access.Endpoints[:1]
			if err := cleanup(ctx, access, conns, lib, prefix); err != nil {
				t.Fatal(err)
			}
			if left := keysOn(t, topo, lib, prefix); len(left) != 0 {
				t.Errorf("after cleanup the run's keys left: %v (before %v)", left, before)
			}
			kept, total := keysOn(t, topo, lib, other), 0
			for _, n := range kept {
				total += n
			}
			if total != keys {
				t.Errorf("after cleanup %d other keys (%v); want all %d", total, kept, keys)
			}
		})
	}
}
