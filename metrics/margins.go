package metrics

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Margins accumulates how close the leases of expiring locks came to
// breaking, for a stripe of clients over a whole cell (warm-up included,
// like the oracle's violations: a near miss is one wherever it happens).
// It is safe for concurrent use and records without allocating; a
// client records into it through its [Tally], in batches.
//
// Its three histograms (microseconds) hold:
//   - validity left: at each acquisition's return, how long its lease
//     had left before it expired;
//   - late time: of the holds that stayed in the critical section after
//     their lease had expired, how long after;
//   - loss notice delay: of the holders that learned from the variant
//     (Lease.Lost) that their lease was gone, after its expiry, how long
//     after.
//
// The workload decides what "expired" means (package workloads); the
// counts say how many of how many: a histogram holds the positive values
// only.
type Margins struct {
	mu           sync.Mutex
	validityLeft *hdrhistogram.Histogram
	late         *hdrhistogram.Histogram
	notice       *hdrhistogram.Histogram
	counts       MarginCounts
}

// MarginCounts are the counts beside the margins' histograms.
type MarginCounts struct {
	// ExpiredAtAcquire counts acquisitions whose lease had no validity
	// left when the acquire returned: expired before the holder had it.
	ExpiredAtAcquire int64
	// Holds counts the critical sections whose end was measured;
	// LateHolds those that ended after their lease had expired.
	Holds, LateHolds int64
	// Notices counts holders told during their hold that the lease was
	// lost; LateNotices those told after it had expired.
	Notices, LateNotices int64
	// Clamped counts values recorded at a limit of the histogram range.
	Clamped int64
}

// NewMargins returns empty margins.
func NewMargins() *Margins {
	return &Margins{validityLeft: newHistogram(), late: newHistogram(), notice: newHistogram()}
}

// Acquired records the validity a lease had left when its acquire
// returned; left <= 0 counts an acquisition expired on arrival (recorded
// at the histogram's floor).
func (m *Margins) Acquired(left time.Duration) {
	m.mu.Lock()
	if left <= 0 {
		m.counts.ExpiredAtAcquire++
	}
	m.record(m.validityLeft, left)
	m.mu.Unlock()
}

// Exited records the end of a critical section late after its lease
// expired; late <= 0 is a hold that ended in time.
func (m *Margins) Exited(late time.Duration) {
	m.counted(&m.counts.Holds, &m.counts.LateHolds, m.late, late)
}

// Noticed records that a holder learned its lease was lost delay after
// the lease expired; delay <= 0 is a notice in time.
func (m *Margins) Noticed(delay time.Duration) {
	m.counted(&m.counts.Notices, &m.counts.LateNotices, m.notice, delay)
}

// counted counts one event in all, and, when it came late by d > 0, in
// late and h.
func (m *Margins) counted(all, late *int64, h *hdrhistogram.Histogram, d time.Duration) {
	m.mu.Lock()
	*all++
	if d > 0 {
		*late++
		m.record(h, d)
	}
	m.mu.Unlock()
}

func (m *Margins) record(h *hdrhistogram.Histogram, d time.Duration) {
	us, clamped := clampMarginMicros(d)
	if clamped {
		m.counts.Clamped++
	}
	_ = h.RecordValue(us) // within the range
}

// clampMarginMicros is d in microseconds clamped into the histograms'
// range, and whether the margins count it as clamped: one beyond the
// range, or one of 0 or less (recorded at the floor).
func clampMarginMicros(d time.Duration) (us int64, clamped bool) {
	us = d.Microseconds()
	if us < lowestMicros || us > highestMicros {
		return min(max(us, lowestMicros), highestMicros), us > highestMicros || d <= 0
	}
	return us, false
}

// MarginSummary is the merged margins of a cell.
type MarginSummary struct {
	// TTL is the lease time the margins were measured against (the
	// workload sets it).
	TTL                            time.Duration
	ValidityLeft, Late, LossNotice *hdrhistogram.Histogram
	MarginCounts
}

// MergeMargins merges the margins of a cell's stripes; nil margins are
// skipped. It returns false when there are none (the cell's locks do not
// expire).
func MergeMargins(ms []*Margins) (MarginSummary, bool) {
	s := MarginSummary{ValidityLeft: newHistogram(), Late: newHistogram(), LossNotice: newHistogram()}
	found := false
	for _, m := range ms {
		if m == nil {
			continue
		}
		found = true
		m.mu.Lock()
		s.Clamped += s.ValidityLeft.Merge(m.validityLeft) + s.Late.Merge(m.late) + s.LossNotice.Merge(m.notice)
		c := m.counts
		s.ExpiredAtAcquire += c.ExpiredAtAcquire
		s.Holds += c.Holds
		s.LateHolds += c.LateHolds
		s.Notices += c.Notices
		s.LateNotices += c.LateNotices
		s.Clamped += c.Clamped
		m.mu.Unlock()
	}
	return s, found
}
