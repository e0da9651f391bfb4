package runner

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/linearize"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
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
	c.DriverProcs = p.DriverProcs
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

// NewCell summarizes one cell's outcome and oracle report as the record
// keeps it: figures and quantiles, counts, and the measured phase's
// histograms encoded. The cell's names (variant, client, clients ...),
// its fault events and its server cost are left to the caller.
func NewCell(out workloads.Outcome, oracle oracle.Report) (record.Cell, error) {
	m := out.Measured
	c := record.Cell{
		ElapsedS:            out.Elapsed.Seconds(),
		Acquisitions:        m.Acquisitions,
		AcquireLatencyUS:    metrics.Quantiles(m.Acquire),
		AcquireLatencyRawUS: metrics.Quantiles(m.AcquireRaw),
		ReleaseLatencyUS:    metrics.Quantiles(m.Release),
		HoldTimeUS:          metrics.Quantiles(m.Hold),
		HandoffLatencyUS:    metrics.Quantiles(out.Handoff),
		Dropped:             m.Dropped,
		Attempts:            m.Attempts,
		FailedAttempts:      m.FailedAttempts,
		Timeouts:            m.Timeouts,
		Errors:              m.Errors,
		Commands:            m.Commands,
		Counters:            m.Notes,
		ErrorsByKind:        m.ErrorsByKind,
		Fairness:            m.Fairness,
		Series:              m.Series,
		Interrupted:         out.Interrupted,
		Violations: record.Violations{
			Overlaps:             oracle.Overlaps,
			MaxOccupancy:         oracle.MaxOccupancy,
			TimeOverLimitMS:      float64(oracle.TimeOverLimit) / float64(time.Millisecond),
			LostUpdates:          oracle.LostUpdates,
			CriticalSections:     oracle.CriticalSections,
			LeaseLost:            m.LeaseLost + out.Warmup.LeaseLost,
			Abandoned:            oracle.Abandoned,
			StaleReleases:        m.StaleReleases + out.Warmup.StaleReleases,
			StaleWrites:          oracle.StaleWrites,
			RejectedWrites:       oracle.RejectedWrites,
			LongestUnavailableMS: float64(oracle.LongestUnavailable) / float64(time.Millisecond),
			Crashed:              m.Crashed + out.Warmup.Crashed,
		},
		Warmup: record.Warmup{Acquisitions: out.Warmup.Acquisitions, Errors: out.Warmup.Errors, Timeouts: out.Warmup.Timeouts},
	}
	if out.Offered > 0 {
		c.LatenessUS = metrics.Quantiles(m.Lateness)
	}
	if elapsed := out.Elapsed.Seconds(); elapsed > 0 {
		c.ThroughputPerS = float64(m.Acquisitions) / elapsed
		c.OfferedPerS = float64(out.Offered) / elapsed
	}
	if m.Acquisitions > 0 {
		c.CommandsPerAcquisition = float64(m.Commands) / float64(m.Acquisitions)
	}
	for _, o := range out.ClockOffsets {
		c.ClockOffsetsMS = append(c.ClockOffsetsMS, float64(o)/float64(time.Millisecond))
	}
	if err := encodeHistograms([]histogramField{
		{&c.Histograms.Acquire, m.Acquire, "acquire"}, {&c.Histograms.AcquireRaw, m.AcquireRaw, "acquire_raw"},
		{&c.Histograms.Release, m.Release, "release"}, {&c.Histograms.Hold, m.Hold, "hold"},
		{&c.Histograms.Handoff, out.Handoff, "handoff"},
	}); err != nil {
		return c, err
	}
	return c, marginsOf(&c, out.Margins)
}

// marginsOf puts the margins m (nil for none) into c, their histograms
// encoded.
func marginsOf(c *record.Cell, m *metrics.MarginSummary) error {
	if m == nil {
		return nil
	}
	c.Margins = &record.Margins{
		TTLMS:          float64(m.TTL) / float64(time.Millisecond),
		ValidityLeftUS: metrics.Quantiles(m.ValidityLeft), ExpiredAtAcquire: m.ExpiredAtAcquire,
		Holds: m.Holds, LateHolds: m.LateHolds, LateUS: metrics.Quantiles(m.Late),
		Notices: m.Notices, LateNotices: m.LateNotices, LossNoticeUS: metrics.Quantiles(m.LossNotice),
	}
	return encodeHistograms([]histogramField{
		{&c.Histograms.ValidityLeft, m.ValidityLeft, "validity left"}, {&c.Histograms.Late, m.Late, "late"},
		{&c.Histograms.LossNotice, m.LossNotice, "loss notice"},
	})
}

// histogramField is a histogram and the record's field for its encoding.
type histogramField struct {
	dst  *string
	src  *hdrhistogram.Histogram
	name string
}

// encodeHistograms encodes each histogram into its field.
func encodeHistograms(fields []histogramField) error {
	for _, h := range fields {
		encoded, err := metrics.EncodeHistogram(h.src)
		if err != nil {
			return fmt.Errorf("runner: %s histogram: %w", h.name, err)
		}
		*h.dst = encoded
	}
	return nil
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
