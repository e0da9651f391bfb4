package record

import (
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/lockbench/lockbench/measure"
)

// Group is one cell of a plan with every repetition of it, in the order
// they ran.
type Group struct {
	Cells []*Cell
}

// First is the group's first repetition, which names the cell.
func (g Group) First() *Cell { return g.Cells[0] }

// Values returns fig's value in every repetition that ran without error.
func (g Group) Values(fig Figure) []float64 {
	var vs []float64
	for _, c := range g.Cells {
		if c.Error == "" {
			vs = append(vs, fig.Value(c))
		}
	}
	return vs
}

// sameCell identifies a cell of the plan apart from its repetition.
func sameCell(c *Cell) cellKey {
	k := keyOf(c)
	k.repetition = 0
	return k
}

// Groups gathers the repetitions of each cell of rec, in the order the
// cells first ran.
func Groups(rec *Record) []Group {
	var groups []Group
	index := map[cellKey]int{}
	for i := range rec.Cells {
		c := &rec.Cells[i]
		k := sameCell(c)
		j, seen := index[k]
		if !seen {
			j = len(groups)
			index[k] = j
			groups = append(groups, Group{})
		}
		groups[j].Cells = append(groups[j].Cells, c)
	}
	return groups
}

// Repeated reports whether some cell of rec ran more than once.
func Repeated(rec *Record) bool {
	return slices.ContainsFunc(rec.Cells, func(c Cell) bool { return c.Repetition > 1 })
}

// Median returns the median of vs (the mean of the middle two for an even
// count), 0 for none: benchmath's, as compare summarizes repetitions.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	sample := benchmath.NewSample(slices.Clone(vs), &benchmath.DefaultThresholds) // sorts its values
	return benchmath.AssumeNothing.Summary(sample, medianConfidence).Center
}

// medianConfidence is the confidence of the interval benchmath computes
// beside a median, which Median does not use.
const medianConfidence = 0.95

// Spread is the range of vs relative to their median: (max-min)/median,
// 0 when the median is 0.
func Spread(vs []float64) float64 {
	m := Median(vs)
	if m == 0 {
		return 0
	}
	return (slices.Max(vs) - slices.Min(vs)) / m
}

// Summary is the cell that stands for a group in tables and checks: its
// performance figures are the medians over the repetitions that ran; what
// went wrong (timeouts, errors, drops, every violation) is the total over
// them, and the worst occupancy and unavailability the worst of them. A
// group of one cell summarizes to that cell.
func (g Group) Summary() Cell {
	var ran []*Cell
	for _, c := range g.Cells {
		if c.Error == "" {
			ran = append(ran, c)
		}
	}
	if len(ran) <= 1 {
		if len(ran) == 1 {
			return *ran[0]
		}
		return *g.First()
	}
	s := *ran[0]
	med := func(f func(c *Cell) float64) float64 {
		vs := make([]float64, len(ran))
		for i, c := range ran {
			vs[i] = f(c)
		}
		return Median(vs)
	}
	sum := func(f func(c *Cell) int64) (n int64) {
		for _, c := range ran {
			n += f(c)
		}
		return n
	}
	medInt := func(f func(c *Cell) int64) int64 { return int64(med(func(c *Cell) float64 { return float64(f(c)) })) }
	worst := func(f func(c *Cell) float64) (m float64) {
		for _, c := range ran {
			m = max(m, f(c))
		}
		return m
	}
	s.ElapsedS = med(func(c *Cell) float64 { return c.ElapsedS })
	s.ThroughputPerS = med(func(c *Cell) float64 { return c.ThroughputPerS })
	s.OfferedPerS = med(func(c *Cell) float64 { return c.OfferedPerS })
	for _, l := range []func(c *Cell) *measure.Latency{
		func(c *Cell) *measure.Latency { return &c.AcquireLatencyUS },
		func(c *Cell) *measure.Latency { return &c.AcquireLatencyRawUS },
		func(c *Cell) *measure.Latency { return &c.ReleaseLatencyUS },
		func(c *Cell) *measure.Latency { return &c.HoldTimeUS },
		func(c *Cell) *measure.Latency { return &c.HandoffLatencyUS },
		func(c *Cell) *measure.Latency { return &c.LatenessUS },
	} {
		*l(&s) = measure.Latency{
			P50: med(func(c *Cell) float64 { return l(c).P50 }), P90: med(func(c *Cell) float64 { return l(c).P90 }),
			P99: med(func(c *Cell) float64 { return l(c).P99 }), P999: med(func(c *Cell) float64 { return l(c).P999 }),
			Max: med(func(c *Cell) float64 { return l(c).Max }), Mean: med(func(c *Cell) float64 { return l(c).Mean }),
		}
	}
	s.Acquisitions = medInt(func(c *Cell) int64 { return c.Acquisitions })
	s.Attempts = medInt(func(c *Cell) int64 { return c.Attempts })
	s.FailedAttempts = medInt(func(c *Cell) int64 { return c.FailedAttempts })
	s.Commands = medInt(func(c *Cell) int64 { return c.Commands })
	s.CommandsPerAcquisition = med(func(c *Cell) float64 { return c.CommandsPerAcquisition })
	s.Timeouts = sum(func(c *Cell) int64 { return c.Timeouts })
	s.Errors = sum(func(c *Cell) int64 { return c.Errors })
	s.Dropped = sum(func(c *Cell) int64 { return c.Dropped })
	s.Fairness.Jain = med(func(c *Cell) float64 { return c.Fairness.Jain })
	if s.Server != nil {
		server := *s.Server
		server.CommandsPerAcquisition = med(func(c *Cell) float64 {
			return ServerValue(c, func(s *ServerCost) float64 { return s.CommandsPerAcquisition })
		})
		server.CPUMicrosPerAcquisition = med(func(c *Cell) float64 {
			return ServerValue(c, func(s *ServerCost) float64 { return s.CPUMicrosPerAcquisition })
		})
		server.AcquisitionsPerCore = med(func(c *Cell) float64 {
			return ServerValue(c, func(s *ServerCost) float64 { return s.AcquisitionsPerCore })
		})
		s.Server = &server
	}
	v := &s.Violations
	v.Overlaps = sum(func(c *Cell) int64 { return c.Violations.Overlaps })
	v.LostUpdates = sum(func(c *Cell) int64 { return c.Violations.LostUpdates })
	v.LeaseLost = sum(func(c *Cell) int64 { return c.Violations.LeaseLost })
	v.StaleReleases = sum(func(c *Cell) int64 { return c.Violations.StaleReleases })
	v.StaleWrites = sum(func(c *Cell) int64 { return c.Violations.StaleWrites })
	v.RejectedWrites = sum(func(c *Cell) int64 { return c.Violations.RejectedWrites })
	v.Abandoned = sum(func(c *Cell) int64 { return c.Violations.Abandoned })
	v.Crashed = sum(func(c *Cell) int64 { return c.Violations.Crashed })
	v.CriticalSections = sum(func(c *Cell) int64 { return c.Violations.CriticalSections })
	v.MaxOccupancy = int64(worst(func(c *Cell) float64 { return float64(c.Violations.MaxOccupancy) }))
	v.TimeOverLimitMS = worst(func(c *Cell) float64 { return c.Violations.TimeOverLimitMS })
	v.LongestUnavailableMS = worst(func(c *Cell) float64 { return c.Violations.LongestUnavailableMS })
	s.Interrupted = slices.ContainsFunc(ran, func(c *Cell) bool { return c.Interrupted })
	s.Repetition = 0
	return s
}
