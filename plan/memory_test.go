package plan_test

import (
	"testing"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// A plan's memory is its largest cell's clients at what its variant
// registered a client takes, per node for redlock, a shard's share of it
// for a shard, over the base of the process.
func TestMemoryKiB(t *testing.T) {
	const base = 64 << 10
	for _, tc := range []struct {
		name    string
		ov      plan.Overrides
		shard   *workloads.Shard
		kib     int64
		variant string
		clients int
	}{
		{"default figure", plan.Overrides{Variants: []string{"lua-release"}, Clients: []int{10, 1000}}, nil, base + 1000*40, "lua-release", 1000},
		{"go-redis", plan.Overrides{Variants: []string{"lua-release"}, Clients: []int{1000}, Client: "go-redis"}, nil, base + 1000*64, "lua-release", 1000},
		{"the costliest variant", plan.Overrides{Variants: []string{"lua-release", "notify"}, Clients: []int{100}}, nil, base + 100*72, "notify", 100},
		{"rueidislock", plan.Overrides{Variants: []string{"rueidislock"}, Clients: []int{100}}, nil, base + 100*512, "rueidislock", 100},
		{"redlock per node", plan.Overrides{Variants: []string{"redlock"}, Clients: []int{100},
			Topology: &topologies.Spec{Name: "local:redlock?nodes=5"}}, nil, base + 100*8*5, "redlock", 100},
		{"a shard's share", plan.Overrides{Variants: []string{"lua-release"}, Clients: []int{1000}}, &workloads.Shard{Index: 1, Count: 4}, base + 250*40, "lua-release", 250},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := plan.Build(nil, tc.ov)
			if err != nil {
				t.Fatal(err)
			}
			kib, variant, clients := plan.MemoryKiB(p, tc.shard)
			if kib != tc.kib || variant != tc.variant || clients != tc.clients {
				t.Errorf("MemoryKiB = %d KiB, %s, %d clients; want %d, %s, %d", kib, variant, clients, tc.kib, tc.variant, tc.clients)
			}
		})
	}
}
