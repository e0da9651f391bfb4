package metrics

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// CellSummary is what one cell measured, summarized: each phase's figures,
// the oracle's handoff histogram, the phase's length and the cell's
// margins. It is the part of a workload's outcome that the record keeps
// (record.NewCell), in types that need no workload to read.
type CellSummary struct {
	// Measured and Warmup summarize each phase; their Commands are left to
	// the caller, who counts them at the connection. Measured.Series has
	// the oracle's overlaps and holders per second.
	Measured, Warmup Summary
	// Handoff is the oracle's release-to-next-acquire histogram on
	// contended keys (µs), over the whole cell.
	Handoff *hdrhistogram.Histogram
	// Elapsed is the length of the measured phase.
	Elapsed time.Duration
	// Offered is the arrivals an open loop scheduled in the measured phase.
	Offered int64
	// Interrupted is true when the run was stopped before the cell ended.
	Interrupted bool
	// ClockOffsets are the clients' clock offsets, nil without skew.
	ClockOffsets []time.Duration
	// Margins are the cell's margins, warm-up included; nil without a
	// lease time.
	Margins *MarginSummary
}
