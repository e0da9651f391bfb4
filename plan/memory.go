package plan

import (
	"errors"
	"fmt"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// ErrMemory is wrapped by CheckMemory's error: the plan's clients would
// not fit in the memory this machine has available.
var ErrMemory = errors.New("plan: not enough memory")

// baseMemoryKiB is what a run takes besides its clients: the process,
// the topology's clients, the oracle.
const baseMemoryKiB = int64(64 << 10)

// MemoryKiB is the memory the largest cell of p takes (shard's share of
// it, for a shard), in KiB, from what each variant registered a client
// takes (variants.Info.ClientMemoryKiB), and that cell's variant and
// clients.
func MemoryKiB(p Plan, shard *workloads.Shard) (kib int64, variant string, clients int) {
	for _, v := range p.Variants {
		info, err := variants.Lookup(v)
		if err != nil {
			continue // Build refuses it
		}
		perClient := info.ClientKiB(p.Client, redlockNodes(p))
		for _, n := range p.Clients {
			if shard != nil {
				n = shard.Clients(n)
			}
			if est := int64(n) * perClient; est > kib {
				kib, variant, clients = est, v, n
			}
		}
	}
	return baseMemoryKiB + kib, variant, clients
}

// redlockNodes is how many servers a variant of MemoryPerNode (redlock)
// takes a lock on in p's topology.
func redlockNodes(p Plan) int {
	if n := len(p.Topology.Targets); n > 0 {
		return n
	}
	if kind, params, err := p.Topology.LocalParams(); err == nil && kind == "redlock" {
		return params["nodes"]
	}
	return 1
}

// CheckMemory refuses, before anything is allocated, a plan whose
// clients would take more memory than the machine has available
// (MemAvailable of /proc/meminfo; where there is none, nothing is
// checked), with an error wrapping ErrMemory that names --clients.
func CheckMemory(p Plan, shard *workloads.Shard) error {
	available, ok := procfs.MemAvailableKiB()
	if !ok {
		return nil
	}
	need, variant, clients := MemoryKiB(p, shard)
	if need <= available {
		return nil
	}
	return inputerr.Errorf(ErrMemory, "--clients: %d clients of %s on %s would take about %s of memory (estimated), more than the %s this machine has available (MemAvailable); give fewer clients, or spread them over machines with --shard i/N",
		clients, variant, p.Client, kibString(need), kibString(available))
}

// kibString shows an amount of KiB in MiB, GiB or TiB.
func kibString(kib int64) string {
	switch {
	case kib >= 1<<30:
		return fmt.Sprintf("%.1f TiB", float64(kib)/(1<<30))
	case kib >= 1<<20:
		return fmt.Sprintf("%.1f GiB", float64(kib)/(1<<20))
	default:
		return fmt.Sprintf("%.0f MiB", float64(kib)/(1<<10))
	}
}
