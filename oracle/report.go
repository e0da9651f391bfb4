package oracle

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/metrics"
)

// Report is what an oracle observed.
type Report struct {
	// Overlaps counts entries that made a resource's holders exceed the limit.
	Overlaps int64 `json:"overlaps"`
	// MaxOccupancy is the most concurrent holders of any one resource.
	MaxOccupancy int64 `json:"max_occupancy"`
	// TimeOverLimit is the wall-clock time during which a resource had more
	// holders than the limit, summed over resources, including intervals
	// still open at report time. In JSON it is nanoseconds.
	TimeOverLimit time.Duration `json:"time_over_limit"`
	// CriticalSections counts exits whose write was applied (completed
	// critical sections); a refused stale write is not one.
	CriticalSections int64 `json:"critical_sections"`
	// Abandoned counts holders that left without writing.
	Abandoned int64 `json:"abandoned"`
	// StaleWrites counts writes applied although their fencing token was
	// lower than the highest the resource had been written with (the
	// default, counting mode).
	StaleWrites int64 `json:"stale_writes"`
	// RejectedWrites counts stale writes the resource refused (with
	// [Memory.RejectStaleWrites]): not applied, so they lose no update.
	RejectedWrites int64 `json:"rejected_writes"`
	// Counter is the sum of all resources' counters.
	Counter int64 `json:"counter"`
	// LostUpdates is CriticalSections − Counter: writes that overwrote
	// another holder's write. It is a check of mutual exclusion, so it is
	// counted only for limit 1: a semaphore admits concurrent writers by
	// design, and then it is 0.
	LostUpdates int64 `json:"lost_updates"`
	// Holders is how many holders are inside critical sections now.
	Holders int64 `json:"holders"`
	// LongestUnavailable is the longest time a resource sat free while a
	// client waited for it: the clock starts when the resource is free (a
	// lock without a holder, a semaphore with a permit left) and a client
	// waits (from Waiting to GaveUp), whichever comes later, and stops
	// when a holder enters and takes the last permit, when no client
	// waits any more, or at the report (the end of the cell). A crashed
	// holder of a lock that never expires makes it last to the end of the
	// cell, of a lock with a TTL about one TTL; a client that finds the
	// resource free and enters at once never waits. In JSON, nanoseconds.
	LongestUnavailable time.Duration `json:"longest_unavailable"`
}

// Report returns what the oracle has observed so far. It may be called while
// holders are still entering and leaving; each resource is read consistently,
// so CriticalSections == Counter + LostUpdates and LostUpdates >= 0 always
// hold. Times are measured with the monotonic clock.
func (o *Memory) Report() Report {
	var rep Report
	o.touchedMu.Lock()
	touched := o.touched[:len(o.touched):len(o.touched)] // appends after this go elsewhere
	o.touchedMu.Unlock()
	for _, i := range touched {
		res := &o.resources[i]
		res.mu.Lock()
		rep.Overlaps += res.overlaps
		rep.MaxOccupancy = max(rep.MaxOccupancy, res.maxOccupancy)
		rep.TimeOverLimit += res.timeOverLimit
		if res.holders > o.limit {
			rep.TimeOverLimit += time.Since(res.overLimitSince)
		}
		rep.CriticalSections += res.criticalSections
		rep.Abandoned += res.abandoned
		rep.StaleWrites += res.staleWrites
		rep.RejectedWrites += res.rejectedWrites
		rep.Counter += res.counter
		rep.Holders += res.holders
		longest := res.longestUnavailable
		if res.unavailable {
			longest = max(longest, time.Since(res.unavailableSince)) // still waiting now
		}
		rep.LongestUnavailable = max(rep.LongestUnavailable, longest)
		res.mu.Unlock()
	}
	if o.limit == 1 {
		rep.LostUpdates = rep.CriticalSections - rep.Counter
	}
	return rep
}

// Handoff returns a copy of the handoff histogram: on resources that others
// were waiting for, the time from a holder leaving to the next holder
// entering, in microseconds. It shows what waiting by polling costs.
func (o *Memory) Handoff() *hdrhistogram.Histogram {
	h := metrics.NewHistogram()
	for i := range o.handoff {
		s := &o.handoff[i]
		s.mu.Lock()
		if s.h != nil {
			h.Merge(s.h)
		}
		s.mu.Unlock()
	}
	return h
}
