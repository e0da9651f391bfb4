package record

import (
	"fmt"
	"math"
	"strings"
)

// ScaleOut is one variant's throughput against the number of nodes
// (masters of a local cluster), measured and as the plan predicts it from
// the one-node step.
type ScaleOut struct {
	Variant string `json:"variant"`
	// NodeShare is the share of a core each node had: the CPU budget, or
	// without one the plan's MaxUtilization of a core.
	NodeShare float64 `json:"node_share_of_core"`
	// Budgeted says whether NodeShare is a CPU budget the nodes were held
	// to.
	Budgeted bool `json:"budgeted"`
	// PerNode is what the plan says one node serves: NodeShare × 1e6 / the
	// Redis CPU per acquisition at the one-node best step; 0 when that
	// step has none.
	PerNode float64 `json:"planned_per_node_per_s"`
	// CPUMicrosPerAcq is that one-node step's Redis CPU per acquisition.
	CPUMicrosPerAcq float64       `json:"cpu_us_per_acquisition"`
	Rows            []ScaleOutRow `json:"rows"`
	Note            string        `json:"note,omitempty"`
}

// ScaleOutRow is one node count's best step within the SLO.
type ScaleOutRow struct {
	Nodes int `json:"nodes"`
	// Clients and ThroughputPerS are the best step's; 0 when no step met
	// the SLO.
	Clients         int     `json:"clients"`
	ThroughputPerS  float64 `json:"throughput_per_s"`
	CPUMicrosPerAcq float64 `json:"cpu_us_per_acquisition,omitempty"`
	// BusiestShare is the busiest master's share of the lock commands at
	// the best step (1 on one node).
	BusiestShare float64 `json:"busiest_master_share,omitempty"`
	// MasterCores is the most CPU one master used at the best step, in
	// cores: below the node's share, the servers were not the limit.
	MasterCores float64 `json:"master_cores,omitempty"`
	// Efficiency is ThroughputPerS over Nodes × the one-node throughput.
	Efficiency float64 `json:"efficiency,omitempty"`
	// PredictedPerS is the plan's throughput for this many nodes: what one
	// node serves (ScaleOut.PerNode, from the one-node best step's cost)
	// over the busiest master's share (Nodes × PerNode when names spread
	// evenly), the busiest node being the limit; Ratio is measured over
	// predicted. The cost holds where each node serves as many clients as
	// the one-node best step or more: fewer clients per node cost more
	// per acquisition (fewer commands per read).
	PredictedPerS float64 `json:"predicted_per_s,omitempty"`
	Ratio         float64 `json:"ratio,omitempty"`
	// MatchedCPUMicrosPerAcq is the one-node steps' Redis CPU per
	// acquisition at the clients the busiest master serves here (Clients ×
	// BusiestShare), interpolated in log2(clients) between the steps;
	// MatchedPredictedPerS the prediction at that cost, and MatchedRatio
	// measured over it: the plan's model with the cost of the same load
	// per node.
	MatchedCPUMicrosPerAcq float64 `json:"matched_cpu_us_per_acquisition,omitempty"`
	MatchedPredictedPerS   float64 `json:"matched_predicted_per_s,omitempty"`
	MatchedRatio           float64 `json:"matched_ratio,omitempty"`
}

// AnalyzeScaleOut builds the scale-out of each variant from the variants
// of a sweep of nodes (SweepVariant.Masters set, analysed), the CPU
// budget of the nodes (0: none; then maxUtilization of a core).
func AnalyzeScaleOut(variants []SweepVariant, budget, maxUtilization float64) []ScaleOut {
	var out []ScaleOut
	var one [][]SweepPoint // per variant: the one-node steps with a cost
	index := map[string]int{}
	for _, v := range variants {
		i, seen := index[v.Variant]
		if !seen {
			i = len(out)
			index[v.Variant] = i
			s := ScaleOut{Variant: v.Variant, NodeShare: budget, Budgeted: budget > 0}
			if budget <= 0 {
				s.NodeShare = maxUtilization
			}
			out = append(out, s)
			one = append(one, nil)
		}
		if v.Masters == 1 {
			for _, p := range v.Points {
				if p.Error == "" && p.CPUMicrosPerAcquisition > 0 {
					one[i] = append(one[i], p)
				}
			}
		}
		row := ScaleOutRow{Nodes: v.Masters}
		if v.Best >= 0 {
			b := v.Points[v.Best]
			row.Clients, row.ThroughputPerS, row.CPUMicrosPerAcq, row.BusiestShare, row.MasterCores = b.Clients, b.ThroughputPerS, b.CPUMicrosPerAcquisition, b.BusiestShare, b.MasterCores
		}
		out[i].Rows = append(out[i].Rows, row)
	}
	for i := range out {
		out[i].predict(one[i])
	}
	return out
}

// predict fills in the per-node plan from the one-node row and each row's
// prediction, ratio and efficiency.
func (s *ScaleOut) predict(steps []SweepPoint) {
	var one *ScaleOutRow
	for i := range s.Rows {
		if s.Rows[i].Nodes == 1 {
			one = &s.Rows[i]
		}
	}
	if one == nil || one.ThroughputPerS <= 0 {
		s.Note = "no prediction: no one-node step met the SLO (sweep --nodes 1,...)"
		return
	}
	if one.CPUMicrosPerAcq > 0 {
		s.CPUMicrosPerAcq = one.CPUMicrosPerAcq
		s.PerNode = s.NodeShare * 1e6 / one.CPUMicrosPerAcq
	} else {
		s.Note = "no prediction: the servers did not report their CPU time"
	}
	for i := range s.Rows {
		r := &s.Rows[i]
		if r.ThroughputPerS <= 0 {
			continue
		}
		r.Efficiency = r.ThroughputPerS / (float64(r.Nodes) * one.ThroughputPerS)
		share := r.BusiestShare
		if !(share > 0) {
			share = 1 / float64(r.Nodes)
		}
		if s.PerNode > 0 {
			r.PredictedPerS = s.PerNode / share
			r.Ratio = r.ThroughputPerS / r.PredictedPerS
			r.MatchedCPUMicrosPerAcq = costAt(steps, float64(r.Clients)*share, s.CPUMicrosPerAcq)
			r.MatchedPredictedPerS = s.NodeShare * 1e6 / r.MatchedCPUMicrosPerAcq / share
			r.MatchedRatio = r.ThroughputPerS / r.MatchedPredictedPerS
		}
	}
}

// costAt is the one-node steps' Redis CPU per acquisition at clients,
// linear in log2(clients) between the two steps around it, the nearest
// step's beyond them; best without steps.
func costAt(one []SweepPoint, clients, best float64) float64 {
	switch {
	case len(one) == 0:
		return best
	case clients <= float64(one[0].Clients):
		return one[0].CPUMicrosPerAcquisition
	}
	for i := 1; i < len(one); i++ {
		lo, hi := one[i-1], one[i]
		if clients <= float64(hi.Clients) {
			f := (math.Log2(clients) - math.Log2(float64(lo.Clients))) / (math.Log2(float64(hi.Clients)) - math.Log2(float64(lo.Clients)))
			return lo.CPUMicrosPerAcquisition + f*(hi.CPUMicrosPerAcquisition-lo.CPUMicrosPerAcquisition)
		}
	}
	return one[len(one)-1].CPUMicrosPerAcquisition
}

// Lines are the scale-out's conclusions in words.
func (s ScaleOut) Lines() []string {
	if s.Note != "" && s.PerNode == 0 {
		return []string{s.Note}
	}
	core := fmt.Sprintf("%.0f%% of a core per node (CPU budget)", 100*s.NodeShare)
	if !s.Budgeted {
		core = fmt.Sprintf("%.0f%% of a core per node (no budget: --max-cpu)", 100*s.NodeShare)
	}
	lines := []string{fmt.Sprintf("plan from the one-node best step: %.1f µs Redis CPU per acquisition → %.0f acq/s per node at %s; "+
		"for N nodes, that over the busiest master's share (N × it when names spread evenly)", s.CPUMicrosPerAcq, s.PerNode, core)}
	var parts []string
	for _, r := range s.Rows {
		if r.Nodes > 1 && r.Ratio > 0 {
			parts = append(parts, fmt.Sprintf("%d nodes %.2f× (efficiency %.2f; %.2f× at the one-node cost of its clients per node, %.1f µs)",
				r.Nodes, r.Ratio, r.Efficiency, r.MatchedRatio, r.MatchedCPUMicrosPerAcq))
		}
	}
	if len(parts) > 0 {
		lines = append(lines, "measured/predicted: "+strings.Join(parts, ", "))
	}
	var short []string
	for _, r := range s.Rows {
		if s.Budgeted && r.MasterCores > 0 && r.MasterCores < 0.9*s.NodeShare {
			short = append(short, fmt.Sprintf("%d node(s): %.3f of its %.2f", r.Nodes, r.MasterCores, s.NodeShare))
		}
	}
	if len(short) > 0 {
		lines = append(lines, "the servers were not the limit where the busiest master used under 90% of its budget ("+strings.Join(short, "; ")+
			"): the load generator or the machine was, and the ratio there measures them, not the plan")
	}
	return lines
}

// masterCores is the most CPU time one master spent over the cell's
// elapsed time, in cores; 0 when unknown.
func masterCores(c *Cell) float64 {
	if c.Server == nil || c.ElapsedS <= 0 {
		return 0
	}
	most := 0.0
	for _, n := range c.Server.Nodes {
		if n.Role == "master" {
			most = max(most, n.CPUSeconds/c.ElapsedS)
		}
	}
	return most
}

// busiestMaster returns how many masters ran a cell's commands and the
// busiest one's share of them; 0, 0 when the servers did not say.
func busiestMaster(s *ServerCost) (masters int, share float64) {
	if s == nil {
		return 0, 0
	}
	var total, most int64
	for _, n := range s.Nodes {
		if n.Role != "master" {
			continue
		}
		masters++
		total += n.Commands
		most = max(most, n.Commands)
	}
	if total == 0 {
		return masters, 0
	}
	return masters, math.Min(1, float64(most)/float64(total))
}
