package record

import (
	"fmt"

	"github.com/lockbench/lockbench/capacity"
)

// Sweep is what lockbench sweep found: per variant, the steps it ran
// upward in clients or offered rate, where it stopped and why, and the
// capacity those steps imply.
type Sweep struct {
	// By is "clients" or "rate": what the steps raise.
	By string `json:"by"`
	// SLO are the thresholds every step must meet.
	SLO []string `json:"slo"`
	// MinGain is the throughput gain over the best step so far below which
	// a step counts as not rising.
	MinGain float64 `json:"min_gain"`
	// TargetRate and MaxUtilization are the node plan's inputs (0: none).
	TargetRate     float64        `json:"target_rate,omitempty"`
	MaxUtilization float64        `json:"max_utilization,omitempty"`
	Variants       []SweepVariant `json:"variants"`
	// Nodes are the node counts of a sweep of nodes (--nodes).
	Nodes []int `json:"nodes,omitempty"`
	// ScaleOut is, for a sweep of nodes (--nodes), each variant's best
	// throughput per node count beside the plan's prediction.
	ScaleOut []ScaleOut `json:"scale_out,omitempty"`
}

// SweepVariant is one variant's sweep.
type SweepVariant struct {
	Variant string       `json:"variant"`
	Points  []SweepPoint `json:"points"`
	// Stop says why the steps ended.
	Stop string `json:"stop"`
	// Best is the index in Points of the highest throughput within the
	// SLO; -1 when no step met it.
	Best int `json:"best"`
	// Knee is the index in Points of the last step before throughput
	// stopped rising.
	Knee int `json:"knee"`
	// USL is the scalability model fitted to the points of a clients
	// sweep; FitError says why there is none.
	USL      *USL   `json:"usl,omitempty"`
	FitError string `json:"fit_error,omitempty"`
	// Masters is the node count of a sweep of nodes (--nodes): the
	// masters of the cluster this variant's steps ran on; 0 otherwise.
	Masters int `json:"masters,omitempty"`
	// Nodes is the plan of Redis nodes (masters) for TargetRate from the
	// Redis CPU per acquisition at Best; NodesError says why there is none.
	Nodes      *NodePlan `json:"nodes,omitempty"`
	NodesError string    `json:"nodes_error,omitempty"`
}

// USL is Gunther's Universal Scalability Law fitted to a clients sweep:
// X(N) = λN / (1 + σ(N−1) + κN(N−1)) (see capacity.USL).
type USL struct {
	Lambda float64 `json:"lambda"` // throughput of one client, /s
	Sigma  float64 `json:"sigma"`  // contention (serial fraction)
	Kappa  float64 `json:"kappa"`  // coherency (crosstalk)
	R2     float64 `json:"r2"`     // coefficient of determination of the fit
	Points int     `json:"points"` // number of points fitted
}

// Throughput is the model's throughput at concurrency n.
func (u USL) Throughput(n float64) float64 { return capacity.USL(u).Throughput(n) }

// Peak is the concurrency where the model's throughput peaks, and that
// throughput (see capacity.USL.Peak).
func (u USL) Peak() (n, x float64) { return capacity.USL(u).Peak() }

// NodePlan is how many Redis nodes (masters: one main thread each) a
// target acquisition rate needs (see capacity.PlanNodes).
type NodePlan struct {
	TargetRate      float64 `json:"target_rate"`            // acquisitions/s wanted
	CPUMicrosPerAcq float64 `json:"cpu_us_per_acquisition"` // measured Redis CPU per acquisition, µs
	MaxUtilization  float64 `json:"max_utilization"`        // planned busy fraction of a Redis core
	PerNode         float64 `json:"per_node"`               // acquisitions/s one node serves at MaxUtilization
	Nodes           int     `json:"nodes"`                  // nodes needed, at least 1
	Skew            float64 `json:"skew,omitempty"`         // the busiest node's load over the mean; 0 or 1: even
	Assumption      string  `json:"assumption"`             // the assumptions, in one sentence
}

// SweepPoint is one step of a sweep, taken from its cell.
type SweepPoint struct {
	Clients        int     `json:"clients"`
	OfferedPerS    float64 `json:"offered_per_s,omitempty"`
	ThroughputPerS float64 `json:"throughput_per_s"`
	AcquireP99US   float64 `json:"acquire_p99_us"`
	// CPUMicrosPerAcquisition is Redis' CPU per acquisition; 0 unknown.
	CPUMicrosPerAcquisition float64 `json:"cpu_us_per_acquisition,omitempty"`
	// Failed lists the SLO thresholds the step broke.
	Failed []string `json:"failed,omitempty"`
	Error  string   `json:"error,omitempty"`
	// Masters is how many masters served the step, and BusiestShare the
	// busiest one's share of their lock commands (the servers' own
	// counters); 0 when unknown.
	Masters      int     `json:"masters,omitempty"`
	BusiestShare float64 `json:"busiest_master_share,omitempty"`
	// MasterCores is the most CPU one master used over the cell, in
	// cores (its INFO CPU time over the cell's elapsed time): with a CPU
	// budget it says whether the servers were the limit; 0 unknown.
	MasterCores float64 `json:"master_cores,omitempty"`
}

// Within reports whether the step ran and met the SLO.
func (p SweepPoint) Within() bool { return p.Error == "" && len(p.Failed) == 0 }

// NewSweepPoint takes a step's figures from its cell and checks the SLO.
func NewSweepPoint(c *Cell, slo []Threshold) SweepPoint {
	p := SweepPoint{Clients: c.Clients, OfferedPerS: c.OfferedPerS, ThroughputPerS: c.ThroughputPerS,
		AcquireP99US: c.AcquireLatencyUS.P99, CPUMicrosPerAcquisition: ServerValue(c, func(s *ServerCost) float64 { return s.CPUMicrosPerAcquisition }),
		Error: c.Error}
	p.Masters, p.BusiestShare = busiestMaster(c.Server)
	p.MasterCores = masterCores(c)
	if c.Error != "" {
		return p
	}
	for _, t := range slo {
		if ok, got := t.Holds(c); !ok {
			p.Failed = append(p.Failed, fmt.Sprintf("%s (got %s)", t.Text, figures[t.metric].Format(got)))
		}
	}
	return p
}

// Analyze fills in the best step, the knee, the USL fit (clients sweeps)
// and the node plan from v's points.
func (v *SweepVariant) Analyze(by string, minGain, targetRate, maxUtilization float64) {
	v.Best = -1
	var (
		measured []capacity.Point
		at       []int // index in Points of each measured point
	)
	for i, p := range v.Points {
		if p.Within() && (v.Best < 0 || p.ThroughputPerS > v.Points[v.Best].ThroughputPerS) {
			v.Best = i
		}
		if p.Error == "" && p.ThroughputPerS > 0 {
			n := float64(p.Clients)
			if by == "rate" {
				n = p.OfferedPerS
			}
			measured = append(measured, capacity.Point{N: n, X: p.ThroughputPerS})
			at = append(at, i)
		}
	}
	v.Knee = -1
	if len(measured) > 0 {
		v.Knee = at[capacity.Knee(measured, minGain)]
	}
	if by == "clients" {
		if u, err := capacity.FitUSL(measured); err != nil {
			v.FitError = err.Error()
		} else {
			fit := USL(u)
			v.USL = &fit
		}
	}
	if targetRate <= 0 {
		return
	}
	if v.Best < 0 {
		v.NodesError = "no step met the SLO"
		return
	}
	best := v.Points[v.Best]
	plan, err := capacity.PlanNodesSkewed(targetRate, best.CPUMicrosPerAcquisition, maxUtilization, best.BusiestShare*float64(best.Masters))
	if err != nil {
		v.NodesError = err.Error()
		if v.Points[v.Best].CPUMicrosPerAcquisition == 0 {
			v.NodesError = "the servers did not report their CPU time"
		}
		return
	}
	nodes := NodePlan(plan)
	v.Nodes = &nodes
}
