package results

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrBadCheck is wrapped by every error about a check's text.
var ErrBadCheck = errors.New("bad check")

// metric is a figure of a cell that checks can name; latencies are in
// microseconds and their limits may be written as durations (5ms).
type metric struct {
	value   func(c *Cell) float64
	latency bool
}

var figures = map[string]metric{
	"throughput":     {func(c *Cell) float64 { return c.ThroughputPerS }, false},
	"acquisitions":   {func(c *Cell) float64 { return float64(c.Acquisitions) }, false},
	"acquire.p50":    {func(c *Cell) float64 { return c.AcquireLatencyUS.P50 }, true},
	"acquire.p90":    {func(c *Cell) float64 { return c.AcquireLatencyUS.P90 }, true},
	"acquire.p99":    {func(c *Cell) float64 { return c.AcquireLatencyUS.P99 }, true},
	"acquire.p999":   {func(c *Cell) float64 { return c.AcquireLatencyUS.P999 }, true},
	"acquire.max":    {func(c *Cell) float64 { return c.AcquireLatencyUS.Max }, true},
	"release.p99":    {func(c *Cell) float64 { return c.ReleaseLatencyUS.P99 }, true},
	"handoff.p99":    {func(c *Cell) float64 { return c.HandoffLatencyUS.P99 }, true},
	"overlaps":       {func(c *Cell) float64 { return float64(c.Violations.Overlaps) }, false},
	"lost_updates":   {func(c *Cell) float64 { return float64(c.Violations.LostUpdates) }, false},
	"stale_releases": {func(c *Cell) float64 { return float64(c.Violations.StaleReleases) }, false},
	"lease_lost":     {func(c *Cell) float64 { return float64(c.Violations.LeaseLost) }, false},
	"max_occupancy":  {func(c *Cell) float64 { return float64(c.Violations.MaxOccupancy) }, false},
	"unavailable_ms": {func(c *Cell) float64 { return c.Violations.LongestUnavailableMS }, false},
	"timeouts":       {func(c *Cell) float64 { return float64(c.Timeouts) }, false},
	"errors":         {func(c *Cell) float64 { return float64(c.Errors) }, false},
	"dropped":        {func(c *Cell) float64 { return float64(c.Dropped) }, false},
	"server.cpu_us": {func(c *Cell) float64 {
		return serverValue(c, func(s *ServerCost) float64 { return s.CPUMicrosPerAcquisition })
	}, false},
}

func serverValue(c *Cell, f func(*ServerCost) float64) float64 {
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
		m, known := figures[name]
		if !known {
			return Threshold{}, fmt.Errorf("%w %q: unknown metric %q (known: %s)", ErrBadCheck, text, name, metricNames())
		}
		limit, err := strconv.ParseFloat(value, 64)
		if d, derr := time.ParseDuration(value); err != nil && m.latency && derr == nil {
			limit, err = float64(d)/float64(time.Microsecond), nil
		}
		if err != nil {
			return Threshold{}, fmt.Errorf("%w %q: %q is not a number%s", ErrBadCheck, text, value,
				map[bool]string{true: " or a duration", false: ""}[m.latency])
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
	got := figures[t.metric].value(c)
	switch t.op {
	case "<":
		return got < t.limit, got
	case "<=":
		return got <= t.limit, got
	case ">":
		return got > t.limit, got
	case ">=":
		return got >= t.limit, got
	case "!=":
		return got != t.limit, got
	}
	return got == t.limit, got
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

// Failure is a threshold that did not hold on a cell.
type Failure struct {
	Cell      *Cell
	Threshold Threshold
	Got       float64
}

func (f Failure) String() string {
	got := strconv.FormatFloat(f.Got, 'f', -1, 64)
	if figures[f.Threshold.metric].latency {
		got = FormatMicros(f.Got)
	}
	return fmt.Sprintf("%s, %d clients: %s (got %s)", f.Cell.Variant, f.Cell.Clients, f.Threshold.Text, got)
}

// Evaluate checks every threshold on every cell of rec that ran, and
// returns the ones that failed.
func Evaluate(rec *Record, thresholds []Threshold) []Failure {
	var failed []Failure
	for i := range rec.Cells {
		c := &rec.Cells[i]
		if c.Error != "" {
			continue
		}
		for _, t := range thresholds {
			if ok, got := t.Holds(c); !ok {
				failed = append(failed, Failure{Cell: c, Threshold: t, Got: got})
			}
		}
	}
	return failed
}
