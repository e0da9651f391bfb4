package plan

import (
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// nodeCPU gives the topology the CPU budget of --node-cpu, when given.
func (b *builder) nodeCPU(t topologies.Spec, share *float64) topologies.Spec {
	if share == nil {
		return t
	}
	withBudget, err := t.WithNodeCPU(*share)
	if err == nil {
		return withBudget
	}
	if !t.IsLocal() {
		b.fail("--node-cpu", "a CPU budget holds the nodes lockbench starts: give a local topology (--topology local:cluster?masters=3), not %s", t.Name)
		return t
	}
	b.fail("--node-cpu", "want a share of one core in (0, 1], such as 0.15 (got %v)", *share)
	return t
}

// keyDist parses --key-dist; "" is uniform.
func (b *builder) keyDist(text string) workloads.KeyDist {
	d, err := workloads.ParseKeyDist(text)
	b.failOn("--key-dist", err)
	return d
}
