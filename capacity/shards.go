package capacity

import (
	"errors"
	"fmt"
	"math"
)

// ErrBadPlan is returned by PlanShards for a target rate or CPU cost that is
// not positive and finite, or a utilization outside (0, 1].
var ErrBadPlan = errors.New("capacity: bad plan input")

// maxShards bounds Plan.Shards, far beyond any real cluster, so that the
// float-to-int conversion stays defined.
const maxShards = 1 << 20

// Plan is how many Redis shards (one main thread each) a target acquisition
// rate needs.
type Plan struct {
	TargetRate      float64 `json:"target_rate"`            // acquisitions/s wanted
	CPUMicrosPerAcq float64 `json:"cpu_us_per_acquisition"` // measured Redis CPU per acquisition, µs
	MaxUtilization  float64 `json:"max_utilization"`        // planned busy fraction of a Redis core, e.g. 0.7
	PerShard        float64 `json:"per_shard"`              // acquisitions/s one shard serves at MaxUtilization
	Shards          int     `json:"shards"`                 // shards needed, at least 1
	Assumption      string  `json:"assumption"`             // one sentence stating the assumptions, for the report
}

// PlanShards returns the number of shards that serve targetRate
// acquisitions/s when each acquisition costs cpuMicrosPerAcq µs of Redis
// CPU and no shard's core is busier than maxUtilization:
// PerShard = maxUtilization × 1e6 / cpuMicrosPerAcq and
// Shards = ⌈targetRate / PerShard⌉, at least 1.
func PlanShards(targetRate, cpuMicrosPerAcq, maxUtilization float64) (Plan, error) {
	if !(targetRate > 0) || math.IsInf(targetRate, 0) {
		return Plan{}, fmt.Errorf("%w: target rate %g acquisitions/s must be positive and finite", ErrBadPlan, targetRate)
	}
	if !(cpuMicrosPerAcq > 0) || math.IsInf(cpuMicrosPerAcq, 0) {
		return Plan{}, fmt.Errorf("%w: CPU per acquisition %g µs must be positive and finite", ErrBadPlan, cpuMicrosPerAcq)
	}
	if !(maxUtilization > 0 && maxUtilization <= 1) {
		return Plan{}, fmt.Errorf("%w: max utilization %g must be in (0, 1]", ErrBadPlan, maxUtilization)
	}
	perShard := maxUtilization * 1e6 / cpuMicrosPerAcq
	// The small tolerance keeps a rate that is an exact multiple of
	// PerShard, up to rounding, from asking for one shard more.
	shards := math.Ceil(targetRate/perShard - 1e-9)
	if shards > maxShards {
		return Plan{}, fmt.Errorf("%w: %g acquisitions/s at %g per shard needs more than %d shards", ErrBadPlan, targetRate, perShard, maxShards)
	}
	plan := Plan{
		TargetRate:      targetRate,
		CPUMicrosPerAcq: cpuMicrosPerAcq,
		MaxUtilization:  maxUtilization,
		PerShard:        perShard,
		Shards:          max(1, int(shards)),
	}
	plan.Assumption = fmt.Sprintf("Assumes Redis runs commands on one core per shard, "+
		"lock names spread evenly over the shards (hash slots), "+
		"each acquisition keeps costing the measured %.3g µs of Redis CPU (same contention per lock name, same variant and client), "+
		"and neither the network nor the clients are the limit.", cpuMicrosPerAcq)
	return plan, nil
}
