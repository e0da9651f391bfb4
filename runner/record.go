package runner

import (
	"time"

	"github.com/lockbench/lockbench/linearize"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// This file turns what a run measured, in the types of the packages that
// measured it, into the record's types (package record), which are read
// without those packages. What both sides share (package measure:
// latencies, seconds, fairness, error counts, faults and their events)
// passes through as it is.

// configOf is the plan as the record echoes it, its topology's passwords
// masked: field for field the plan's JSON.
func configOf(p plan.Plan) record.RunConfig {
	topo := p.Topology.Redacted()
	w := p.Workload
	c := record.RunConfig{
		Variants: p.Variants, Clients: p.Clients, Client: p.Client, Servers: p.Servers,
		Topology: record.TopologySpec{Name: topo.Name, Targets: topo.Targets, Cluster: topo.Cluster, Sentinels: topo.Sentinels,
			MasterName: topo.MasterName, TLSCA: topo.TLSCA, TLSInsecure: topo.TLSInsecure},
		Workload: record.Workload{Clients: w.Clients, Keys: w.Keys, KeyPerClient: w.KeyPerClient, Hold: w.Hold.String(), Think: w.Think.String(),
			Duration: w.Duration, Ops: w.Ops, Warmup: w.Warmup, Rate: w.Rate, Arrivals: w.Arrivals, Pacing: w.Pacing},
		TTL: p.TTL, AcquireTimeout: p.AcquireTimeout, Limit: p.Limit,
		ClientGroups: p.ClientGroups, Scenario: p.Scenario, Repeat: p.Repeat, Fence: p.Fence, WaitStrict: p.WaitStrict, AllowDestructive: p.AllowDestructive,
	}
	if !w.KeyDist.IsUniform() {
		c.Workload.KeyDist = w.KeyDist.String()
	}
	if !p.Retry.IsZero() {
		c.Retry = p.Retry.String()
	}
	if !w.Clocks.IsZero() {
		c.Workload.Clocks.Skew = w.Clocks.Skew.String()
		for _, j := range w.Clocks.Jumps {
			c.Workload.Clocks.Jumps = append(c.Workload.Clocks.Jumps, j.String())
		}
	}
	for _, st := range w.Stages {
		c.Workload.Stages = append(c.Workload.Stages, st.String())
	}
	for _, f := range p.Faults {
		c.Faults = append(c.Faults, f.Spec())
	}
	for _, m := range p.Drivers {
		c.Drivers = append(c.Drivers, record.DriverSpec{Name: m.Name, Library: m.Library, Language: m.Language,
			Command: m.Command, Requires: m.Requires, Summary: m.Summary})
	}
	c.DriverProcs, c.InterruptRelease = p.DriverProcs, p.InterruptRelease
	return c
}

// nodesOf are the topology's nodes as the record names them, each with
// its product (products in the nodes' order; nil for none).
func nodesOf(nodes []topologies.Node, products []string) []record.Node {
	out := make([]record.Node, 0, len(nodes))
	for i, n := range nodes {
		node := record.Node{Name: n.Name, Role: string(n.Role),
			Endpoint: record.Endpoint{Addr: n.Endpoint.Addr, Username: n.Endpoint.Username, DB: n.Endpoint.DB}}
		if i < len(products) {
			node.Product = products[i]
		}
		out = append(out, node)
	}
	return out
}

// shardOf is the record's shard of a sharded run; nil for none.
func shardOf(s *workloads.Shard) *record.ShardInfo {
	if s == nil {
		return nil
	}
	return &record.ShardInfo{Index: s.Index, Count: s.Count}
}

// fencing reports whether variant hands out fencing tokens, so that the
// record shows what the resource did with them.
func fencing(variant string) bool {
	info, err := variants.Lookup(variant)
	return err == nil && info.Claims.Fencing
}

// historyCheckOf is porcupine's verdict on a history as the record keeps
// it.
func historyCheckOf(res *linearize.Result) *record.HistoryCheck {
	c := &record.HistoryCheck{Verdict: string(res.Verdict), View: res.View, FailingKeys: res.FailingKeys,
		FailingSegments: res.FailingSegments, ElapsedMS: float64(res.Elapsed) / float64(time.Millisecond)}
	if w := res.Window; w != nil {
		c.Window = &record.HistoryWindow{Key: w.Key, Leases: w.Leases, Processes: w.Processes, FromNS: w.From, ToNS: w.To}
		for _, op := range w.Ops {
			c.Window.Ops = append(c.Window.Ops, op.String())
		}
	}
	return c
}

// newServerCost is what the servers' counters say a cell cost them,
// related to the acquisitions that caused it.
func newServerCost(cost metrics.ServerCost, acquisitions int64) *record.ServerCost {
	s := &record.ServerCost{Commands: cost.Commands, ByCommand: cost.ByCommand, Housekeeping: cost.Housekeeping, CPUSeconds: cost.CPUSeconds,
		Nodes: cost.Nodes}
	s.Relate(acquisitions)
	return s
}

// cpuBudgetOf is the CPU budget the topology holds its nodes to, nil for
// none (and for every topology lockbench did not start).
func cpuBudgetOf(t topologies.Topology) *record.CPUBudget {
	b, ok := t.(interface{ CPUBudget() (float64, string) })
	if !ok {
		return nil
	}
	if share, mechanism := b.CPUBudget(); share > 0 {
		return &record.CPUBudget{Share: share, Mechanism: mechanism}
	}
	return nil
}
