package record

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrBadCheck is wrapped by every error about a check's text.
var ErrBadCheck = errors.New("bad check")

// ErrUnknownMetric is wrapped by LookupFigure's error.
var ErrUnknownMetric = errors.New("unknown metric")

// Figure is a named figure of a cell, as checks, comparisons and sweeps
// name it. Latencies are in microseconds, and their limits may be written
// as durations (5ms).
type Figure struct {
	Name  string
	Value func(c *Cell) float64
	// Latency marks figures in microseconds.
	Latency bool
	// HigherIsBetter marks throughput-like figures; for every other figure
	// lower is better.
	HigherIsBetter bool
}

// Format shows a value of the figure: a latency with its unit, a count as
// an integer, others with up to three decimals.
func (f Figure) Format(v float64) string {
	if f.Latency {
		return FormatMicros(v)
	}
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// FormatMicros shows a latency in microseconds with a unit that keeps three
// significant figures.
func FormatMicros(us float64) string {
	switch {
	case us <= 0:
		return "-"
	case us < 1000:
		return strconv.FormatFloat(us, 'f', 0, 64) + "µs"
	case us < 1e6:
		return strconv.FormatFloat(us/1e3, 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(us/1e6, 'f', 2, 64) + "s"
}

var figures = map[string]Figure{}

func init() {
	for _, f := range []Figure{
		{"throughput", func(c *Cell) float64 { return c.ThroughputPerS }, false, true},
		{"acquisitions", func(c *Cell) float64 { return float64(c.Acquisitions) }, false, true},
		{"acquire.p50", func(c *Cell) float64 { return c.AcquireLatencyUS.P50 }, true, false},
		{"acquire.p90", func(c *Cell) float64 { return c.AcquireLatencyUS.P90 }, true, false},
		{"acquire.p99", func(c *Cell) float64 { return c.AcquireLatencyUS.P99 }, true, false},
		{"acquire.p999", func(c *Cell) float64 { return c.AcquireLatencyUS.P999 }, true, false},
		{"acquire.max", func(c *Cell) float64 { return c.AcquireLatencyUS.Max }, true, false},
		{"release.p99", func(c *Cell) float64 { return c.ReleaseLatencyUS.P99 }, true, false},
		{"handoff.p50", func(c *Cell) float64 { return c.HandoffLatencyUS.P50 }, true, false},
		{"handoff.p99", func(c *Cell) float64 { return c.HandoffLatencyUS.P99 }, true, false},
		{"overlaps", func(c *Cell) float64 { return float64(c.Violations.Overlaps) }, false, false},
		{"lost_updates", func(c *Cell) float64 { return float64(c.Violations.LostUpdates) }, false, false},
		{"stale_releases", func(c *Cell) float64 { return float64(c.Violations.StaleReleases) }, false, false},
		{"stale_writes", func(c *Cell) float64 { return float64(c.Violations.StaleWrites) }, false, false},
		{"rejected_writes", func(c *Cell) float64 { return float64(c.Violations.RejectedWrites) }, false, false},
		{"lease_lost", func(c *Cell) float64 { return float64(c.Violations.LeaseLost) }, false, false},
		{"expired_at_acquire", func(c *Cell) float64 { return float64(cellMargins(c).ExpiredAtAcquire) }, false, false},
		{"late_holds", func(c *Cell) float64 { return float64(cellMargins(c).LateHolds) }, false, false},
		{"max_occupancy", func(c *Cell) float64 { return float64(c.Violations.MaxOccupancy) }, false, false},
		{"unavailable_ms", func(c *Cell) float64 { return c.Violations.LongestUnavailableMS }, false, false},
		{"timeouts", func(c *Cell) float64 { return float64(c.Timeouts) }, false, false},
		{"errors", func(c *Cell) float64 { return float64(c.Errors) }, false, false},
		{"dropped", func(c *Cell) float64 { return float64(c.Dropped) }, false, false},
		{"server.cpu_us", func(c *Cell) float64 {
			return ServerValue(c, func(s *ServerCost) float64 { return s.CPUMicrosPerAcquisition })
		}, false, false},
		{"server.cmds", func(c *Cell) float64 {
			return ServerValue(c, func(s *ServerCost) float64 { return s.CommandsPerAcquisition })
		}, false, false},
	} {
		figures[f.Name] = f
	}
}

// LookupFigure returns the figure called name; the error names the known
// ones.
func LookupFigure(name string) (Figure, error) {
	f, ok := figures[name]
	if !ok {
		return Figure{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownMetric, name, metricNames())
	}
	return f, nil
}

// cellMargins is c's margins, none when it has none.
func cellMargins(c *Cell) Margins {
	if c.Margins == nil {
		return Margins{}
	}
	return *c.Margins
}

// ServerValue is a figure of c's server cost, 0 when the servers reported none.
func ServerValue(c *Cell, f func(*ServerCost) float64) float64 {
	if c.Server == nil {
		return 0
	}
	return f(c.Server)
}

// Threshold is a condition on a cell's figure: acquire.p99<5ms,
// overlaps==0, throughput>=1000.
type Threshold struct {
	Text   string
	metric string
	op     string
	limit  float64
}

var ops = []string{"<=", ">=", "==", "!=", "<", ">", "="} // longest first

// ParseThreshold parses METRIC OP VALUE; latencies take durations (5ms,
// 250us) or microseconds.
func ParseThreshold(text string) (Threshold, error) {
	for _, op := range ops {
		name, value, found := strings.Cut(text, op)
		if !found {
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		m, err := LookupFigure(name)
		if err != nil {
			return Threshold{}, fmt.Errorf("%w %q: %w", ErrBadCheck, text, err)
		}
		limit, err := strconv.ParseFloat(value, 64)
		if err == nil && math.IsNaN(limit) { // a check against NaN never holds (or, with !=, always)
			err = strconv.ErrSyntax
		}
		if d, derr := time.ParseDuration(value); err != nil && m.Latency && derr == nil {
			limit, err = float64(d)/float64(time.Microsecond), nil
		}
		if err != nil {
			return Threshold{}, fmt.Errorf("%w %q: %q is not a number%s", ErrBadCheck, text, value,
				map[bool]string{true: " or a duration", false: ""}[m.Latency])
		}
		if op == "=" {
			op = "=="
		}
		return Threshold{Text: text, metric: name, op: op, limit: limit}, nil
	}
	return Threshold{}, fmt.Errorf("%w %q: want METRIC OP VALUE, e.g. acquire.p99<5ms, overlaps==0, throughput>=1000", ErrBadCheck, text)
}

func metricNames() string {
	names := make([]string, 0, len(figures))
	for n := range figures {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Holds reports whether the threshold holds on c, and the figure it read.
func (t Threshold) Holds(c *Cell) (bool, float64) {
	got := figures[t.metric].Value(c)
	return t.Meets(got), got
}

// Meets reports whether a value of the threshold's figure meets its
// condition.
func (t Threshold) Meets(v float64) bool {
	switch t.op {
	case "<":
		return v < t.limit
	case "<=":
		return v <= t.limit
	case ">":
		return v > t.limit
	case ">=":
		return v >= t.limit
	case "!=":
		return v != t.limit
	}
	return v == t.limit
}

// Check parses cond and evaluates it on c.
func Check(cond string, c *Cell) (bool, error) {
	t, err := ParseThreshold(cond)
	if err != nil {
		return false, err
	}
	ok, _ := t.Holds(c)
	return ok, nil
}

// ThresholdFailure is a threshold that did not hold on a cell.
type ThresholdFailure struct {
	Cell      *Cell
	Threshold Threshold
	Got       float64
}

func (f ThresholdFailure) String() string {
	return fmt.Sprintf("%s, %d clients: %s (got %s)", f.Cell.Variant, f.Cell.Clients, f.Threshold.Text, figures[f.Threshold.metric].Format(f.Got))
}

// Evaluate checks every threshold on every cell of rec that ran (on its
// summary over repetitions: medians, and violations totalled), and returns
// the ones that failed.
func Evaluate(rec *Record, thresholds []Threshold) []ThresholdFailure {
	var failed []ThresholdFailure
	for _, g := range Groups(rec) {
		c := g.Summary()
		if c.Error != "" {
			continue
		}
		for _, t := range thresholds {
			if ok, got := t.Holds(&c); !ok {
				failed = append(failed, ThresholdFailure{Cell: &c, Threshold: t, Got: got})
			}
		}
	}
	return failed
}
