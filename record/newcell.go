package record

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
)

// NewCell summarizes one cell's outcome and oracle report as the record
// keeps it: figures and quantiles, counts, and the measured phase's
// histograms encoded. The cell's names (variant, client, clients ...),
// its fault events and its server cost are left to the caller.
func NewCell(out metrics.CellSummary, oracle oracle.Report) (Cell, error) {
	m := out.Measured
	c := Cell{
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
		Violations: Violations{
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
		Warmup: Warmup{Acquisitions: out.Warmup.Acquisitions, Errors: out.Warmup.Errors, Timeouts: out.Warmup.Timeouts},
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
func marginsOf(c *Cell, m *metrics.MarginSummary) error {
	if m == nil {
		return nil
	}
	c.Margins = &Margins{
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
			return fmt.Errorf("record: %s histogram: %w", h.name, err)
		}
		*h.dst = encoded
	}
	return nil
}
