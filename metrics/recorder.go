package metrics

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry shared by every recorder and summary, so that merging
// never drops a value: 1 µs to 1 hour at 3 significant figures.
const (
	lowestMicros       int64 = 1
	highestMicros            = int64(time.Hour / time.Microsecond)
	significantFigures       = 3
)

// newHistogram returns an empty histogram of the package's geometry; its
// values are microseconds.
func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(lowestMicros, highestMicros, significantFigures)
}

// Recorder accumulates the measurements of one simulated client during one
// run cell. It is not safe for concurrent use: give every client its own
// Recorder and combine them with [Merge] at the end. Recording neither locks
// nor allocates.
//
// The counter fields are incremented directly by the caller.
type Recorder struct {
	// Attempts counts every try at acquiring the lock, successful or not.
	Attempts int64
	// FailedAttempts counts tries that found the lock held.
	FailedAttempts int64
	// Timeouts counts acquisitions given up after the acquire timeout.
	Timeouts int64
	// Errors counts Redis and network errors.
	Errors int64
	// LeaseLost counts releases or renewals that found the lease already gone.
	LeaseLost int64

	acquireLatency *hdrhistogram.Histogram
	releaseLatency *hdrhistogram.Histogram
	holdTime       *hdrhistogram.Histogram
	clamped        int64
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{
		acquireLatency: newHistogram(),
		releaseLatency: newHistogram(),
		holdTime:       newHistogram(),
	}
}

// RecordAcquire records the latency of one successful acquisition.
func (r *Recorder) RecordAcquire(d time.Duration) { r.record(r.acquireLatency, d) }

// RecordRelease records the latency of one release.
func (r *Recorder) RecordRelease(d time.Duration) { r.record(r.releaseLatency, d) }

// RecordHold records how long the lock was held once.
func (r *Recorder) RecordHold(d time.Duration) { r.record(r.holdTime, d) }

// Acquisitions returns the number of successful acquisitions recorded.
func (r *Recorder) Acquisitions() int64 { return r.acquireLatency.TotalCount() }

// Clamped returns how many samples were recorded at a limit of the histogram
// range instead of at their value: durations above 1 hour (recorded as 1 hour)
// and negative durations (recorded as 1 µs). Durations from 0 to 1 µs are
// recorded as 1 µs, the histogram's resolution, and are not counted here.
func (r *Recorder) Clamped() int64 { return r.clamped }

// Reset clears every histogram and counter, for example at the end of a
// warm-up period. It keeps the histograms' memory.
func (r *Recorder) Reset() {
	r.acquireLatency.Reset()
	r.releaseLatency.Reset()
	r.holdTime.Reset()
	*r = Recorder{
		acquireLatency: r.acquireLatency,
		releaseLatency: r.releaseLatency,
		holdTime:       r.holdTime,
	}
}

// record adds d, in whole microseconds, to h; no sample is ever dropped.
func (r *Recorder) record(h *hdrhistogram.Histogram, d time.Duration) {
	micros := int64(d / time.Microsecond)
	switch {
	case d < 0:
		micros = lowestMicros
		r.clamped++
	case micros < lowestMicros:
		micros = lowestMicros
	case micros > highestMicros:
		micros = highestMicros
		r.clamped++
	}
	if err := h.RecordValue(micros); err != nil {
		// Unreachable: micros is within the histogram's range, and a total
		// count of 2^63 samples cannot be reached.
		panic("metrics: " + err.Error())
	}
}
