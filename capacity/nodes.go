package capacity

import (
	"errors"
	"fmt"
	"math"
)

// ErrBadPlan is returned by PlanNodes for a target rate or CPU cost that is
// not positive and finite, or a utilization outside (0, 1].
var ErrBadPlan = errors.New("capacity: bad plan input")

// maxNodes bounds Plan.Nodes, far beyond any real cluster, so that the
// float-to-int conversion stays defined.
const maxNodes = 1 << 20

// Plan is how many Redis nodes (masters of a cluster, or independent
// nodes: one main thread each) a target acquisition rate needs.
type Plan struct {
	TargetRate      float64 `json:"target_rate"`            // acquisitions/s wanted
	CPUMicrosPerAcq float64 `json:"cpu_us_per_acquisition"` // measured Redis CPU per acquisition, µs
	MaxUtilization  float64 `json:"max_utilization"`        // planned busy fraction of a Redis core, e.g. 0.7
	PerNode         float64 `json:"per_node"`               // acquisitions/s one node serves at MaxUtilization
	Nodes           int     `json:"nodes"`                  // nodes needed, at least 1
	// Skew is the busiest node's load over the mean (1: lock names spread
	// evenly): the plan sizes the nodes so that the busiest stays within
	// MaxUtilization. 0 or 1 for an even spread.
	Skew       float64 `json:"skew,omitempty"`
	Assumption string  `json:"assumption"` // one sentence stating the assumptions, for the report
}

// PlanNodes returns the number of Redis nodes that serve targetRate
// acquisitions/s when each acquisition costs cpuMicrosPerAcq µs of Redis
// CPU and no node's core is busier than maxUtilization:
// PerNode = maxUtilization × 1e6 / cpuMicrosPerAcq and
// Nodes = ⌈targetRate / PerNode⌉, at least 1.
func PlanNodes(targetRate, cpuMicrosPerAcq, maxUtilization float64) (Plan, error) {
	return PlanNodesSkewed(targetRate, cpuMicrosPerAcq, maxUtilization, 1)
}

// PlanNodesSkewed is PlanNodes for lock names that do not spread evenly:
// skew is the busiest node's share of the acquisitions over the mean
// share (its share × the nodes measured, at least 1), which it assumes
// holds at every node count, so Nodes = ⌈targetRate × skew / PerNode⌉:
// the busiest node, not the mean, is held to maxUtilization.
func PlanNodesSkewed(targetRate, cpuMicrosPerAcq, maxUtilization, skew float64) (Plan, error) {
	if !(skew >= 1) || math.IsInf(skew, 0) {
		skew = 1
	}
	if !(targetRate > 0) || math.IsInf(targetRate, 0) {
		return Plan{}, fmt.Errorf("%w: target rate %g acquisitions/s must be positive and finite", ErrBadPlan, targetRate)
	}
	if !(cpuMicrosPerAcq > 0) || math.IsInf(cpuMicrosPerAcq, 0) {
		return Plan{}, fmt.Errorf("%w: CPU per acquisition %g µs must be positive and finite", ErrBadPlan, cpuMicrosPerAcq)
	}
	if !(maxUtilization > 0 && maxUtilization <= 1) {
		return Plan{}, fmt.Errorf("%w: max utilization %g must be in (0, 1]", ErrBadPlan, maxUtilization)
	}
	perNode := maxUtilization * 1e6 / cpuMicrosPerAcq
	// The small tolerance keeps a rate that is an exact multiple of
	// PerNode, up to rounding, from asking for one node more.
	nodes := math.Ceil(targetRate*skew/perNode - 1e-9)
	if nodes > maxNodes {
		return Plan{}, fmt.Errorf("%w: %g acquisitions/s at %g per node needs more than %d Redis nodes", ErrBadPlan, targetRate, perNode, maxNodes)
	}
	plan := Plan{
		TargetRate:      targetRate,
		CPUMicrosPerAcq: cpuMicrosPerAcq,
		MaxUtilization:  maxUtilization,
		PerNode:         perNode,
		Nodes:           max(1, int(nodes)),
	}
	spread := "lock names spread evenly over the nodes (hash slots of the cluster's masters), "
	if skew > 1 {
		plan.Skew = skew
		spread = fmt.Sprintf("the busiest node carries %.2f× the mean share of the acquisitions at every node count, as measured (hot lock names), and is the limit, ", skew)
	}
	plan.Assumption = fmt.Sprintf("Assumes Redis runs commands on one core per node, "+
		spread+
		"each acquisition keeps costing the measured %.3g µs of Redis CPU (same contention per lock name, same variant and client), "+
		"and neither the network nor the clients are the limit.", cpuMicrosPerAcq)
	return plan, nil
}
