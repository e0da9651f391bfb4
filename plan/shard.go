package plan

import (
	"fmt"

	"github.com/lockbench/lockbench/workloads"
)

// CheckShard says why shard (given with --shard) gets no load of p: no
// client of one of its client counts, or no acquisition of its ops; nil
// when it gets some of each.
func CheckShard(p Plan, shard workloads.Shard) error {
	for _, n := range p.Clients {
		if shard.Clients(n) == 0 {
			return fmt.Errorf("--shard %s gets no client of --clients %d (give at least %d clients)", shard, n, shard.Count)
		}
	}
	if ops := p.Workload.Ops; ops > 0 && shard.Ops(ops) == 0 {
		return fmt.Errorf("--shard %s gets no acquisition of --ops %d (give at least %d)", shard, ops, shard.Count)
	}
	return nil
}
