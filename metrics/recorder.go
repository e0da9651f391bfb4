package metrics

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry shared by every recorder and summary, so that merging
// never drops a value: 1 µs to 100 s at 3 significant figures (about 150 KB
// each). Longer values are recorded as 100 s and counted as clamped.
const (
	lowestMicros       int64 = 1
	highestMicros            = int64(100 * time.Second / time.Microsecond)
	significantFigures       = 3
	// The per-second histograms are coarser (2 significant figures, about
	// 20 KB each): they give a second's p50 and p99, not its tail.
	secondFigures = 2
)

// newHistogram returns an empty histogram of the package's geometry; its
// values are microseconds.
func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(lowestMicros, highestMicros, significantFigures)
}

// NewHistogram returns an empty histogram of the geometry every figure of
// a run is recorded in (µs, 1 µs to 100 s), so that it merges with them.
func NewHistogram() *hdrhistogram.Histogram { return newHistogram() }

// RecordMicros records us into h, clamped to the geometry's range.
func RecordMicros(h *hdrhistogram.Histogram, us int64) {
	_ = h.RecordValue(min(max(us, lowestMicros), highestMicros))
}

// EventKind is a kind of counted happening of a run: what Recorder.Add
// counts.
type EventKind int

// The events a Recorder counts.
const (
	Attempt      EventKind = iota // a try at acquiring, successful or not
	Busy                          // a try that found the lock (or every permit) held
	Timeout                       // an acquisition given up after the acquire timeout
	Error                         // a Redis or network error
	LeaseLost                     // a release or renewal that found the lease gone
	Dropped                       // an open-loop arrival that found no free client and no room to wait
	StaleRelease                  // a release that succeeded while a later holder was inside: it freed another's lock
	Crashed                       // a client crashed by a fault
	numEvents
)

// Recorder accumulates the measurements of a stripe of clients during one
// phase of a run cell: histograms, counters, and a per-second series. (A
// cell's clients are spread over a few stripes, each with its recorder, so
// that memory stays bounded with thousands of clients; each client records
// through a [Tally] of its own, which takes the stripe's mutex once per
// batch of events rather than per event.) It is safe for concurrent use,
// and recording does not allocate except when a new second begins and at
// the first value of a histogram only some cells use.
type Recorder struct {
	mu    sync.Mutex
	start time.Time // second 0 of the series

	// The acquisitions' latencies: acquireSame holds those whose latency
	// from the intended start and from the actual start are the same (in
	// microseconds: every one of a closed loop, where the two starts are
	// one), recorded once; acquire and acquireRaw the others' (an open
	// loop's), from the intended start and from the actual start, nil
	// until the first. Merge adds acquireSame to both.
	acquireSame *hdrhistogram.Histogram
	acquire     *hdrhistogram.Histogram
	acquireRaw  *hdrhistogram.Histogram
	release     *hdrhistogram.Histogram
	hold        *hdrhistogram.Histogram
	lateness    *hdrhistogram.Histogram // how late the open-loop schedule started arrivals; nil until the first

	counts  [numEvents]int64
	errors  [maxErrorKinds]errorSlot // the Error events, by kind
	clamped int64
	seconds []second
	// notes are a variant's own counters (Config.Note), by name.
	notes map[string]int64
}

// second is one second of the series.
type second struct {
	acquisitions int64
	counts       [numEvents]int64
	acquire      *hdrhistogram.Histogram
}

// NewRecorder returns an empty Recorder whose series starts at start.
func NewRecorder(start time.Time) *Recorder {
	return &Recorder{start: start, acquireSame: newHistogram(), release: newHistogram(), hold: newHistogram()}
}

// secondAt returns the series entry of the second at falls in.
func (r *Recorder) secondAt(at time.Time) *second { return r.second(r.secondOf(at)) }

// secondOf is the index in the series of the second at falls in; it
// needs no lock.
func (r *Recorder) secondOf(at time.Time) int { return max(int(at.Sub(r.start)/time.Second), 0) }

// second returns the series entry of second i, making the seconds up to
// it.
func (r *Recorder) second(i int) *second {
	for len(r.seconds) <= i {
		r.seconds = append(r.seconds, second{acquire: hdrhistogram.New(lowestMicros, highestMicros, secondFigures)})
	}
	return &r.seconds[i]
}

// Acquired records a successful acquisition that completed at at: latency
// from its intended start, raw from its actual start (the same in a closed
// loop).
func (r *Recorder) Acquired(at time.Time, latency, raw time.Duration) {
	r.mu.Lock()
	r.acquired(r.secondOf(at), latency, raw)
	r.mu.Unlock()
}

// acquired records a successful acquisition in second i of the series.
// Call it with r.mu held.
func (r *Recorder) acquired(i int, latency, raw time.Duration) {
	s := r.second(i)
	s.acquisitions++
	us, rawUS := r.micros(latency), r.micros(raw)
	_ = s.acquire.RecordValue(us) // within the range, as every micros
	if us == rawUS {
		_ = r.acquireSame.RecordValue(us)
		return
	}
	r.acquiredApart(us, rawUS)
}

// acquiredApart records an acquisition whose latency and raw latency
// differ, in microseconds within the range. Call it with r.mu held.
func (r *Recorder) acquiredApart(us, rawUS int64) {
	if r.acquire == nil {
		r.acquire, r.acquireRaw = newHistogram(), newHistogram()
	}
	_ = r.acquire.RecordValue(us)
	_ = r.acquireRaw.RecordValue(rawUS)
}

// Released records the latency of a release.
func (r *Recorder) Released(d time.Duration) { r.locked(r.release, d) }

// Held records a hold time.
func (r *Recorder) Held(d time.Duration) { r.locked(r.hold, d) }

// Late records how late an open-loop arrival was started.
func (r *Recorder) Late(d time.Duration) {
	r.mu.Lock()
	r.late(d)
	r.mu.Unlock()
}

// late records a lateness. Call it with r.mu held.
func (r *Recorder) late(d time.Duration) { r.lateMicros(r.micros(d)) }

// lateMicros records a lateness of us microseconds within the range.
// Call it with r.mu held.
func (r *Recorder) lateMicros(us int64) {
	if r.lateness == nil {
		r.lateness = newHistogram()
	}
	_ = r.lateness.RecordValue(us)
}

// Add counts one event that happened at at.
func (r *Recorder) Add(at time.Time, e EventKind) {
	r.mu.Lock()
	r.counts[e]++
	r.secondAt(at).counts[e]++
	r.mu.Unlock()
}

// Failed counts one error, an Error event that happened at at, under its
// kind; the first of a kind keeps its message as the kind's sample. It
// allocates nothing after the first error of a kind.
func (r *Recorder) Failed(at time.Time, f ClientError) {
	r.mu.Lock()
	r.counts[Error]++
	r.secondAt(at).counts[Error]++
	countError(&r.errors, f)
	r.mu.Unlock()
}

// Attempted counts a try at acquiring that did not find the lock held. The
// series does not show attempts by second, so it takes no time: the caller
// reads no clock for it.
func (r *Recorder) Attempted() {
	r.mu.Lock()
	r.counts[Attempt]++
	r.mu.Unlock()
}

// AttemptedBusy counts a try at acquiring that found the lock (or every
// permit) held, at at: an attempt, and a busy one in the second at falls
// in.
func (r *Recorder) AttemptedBusy(at time.Time) {
	r.mu.Lock()
	r.counts[Attempt]++
	r.counts[Busy]++
	r.secondAt(at).counts[Busy]++
	r.mu.Unlock()
}

// Note counts one happening a variant reports under its own name, such
// as an acquisition that replicas did not acknowledge.
func (r *Recorder) Note(name string) {
	r.mu.Lock()
	if r.notes == nil {
		r.notes = map[string]int64{}
	}
	r.notes[name]++
	r.mu.Unlock()
}

// Acquisitions returns the number of successful acquisitions recorded.
func (r *Recorder) Acquisitions() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.acquireSame.TotalCount()
	if r.acquire != nil {
		n += r.acquire.TotalCount()
	}
	return n
}

func (r *Recorder) locked(h *hdrhistogram.Histogram, d time.Duration) {
	r.mu.Lock()
	r.record(h, d)
	r.mu.Unlock()
}

// record adds d to h in microseconds, clamped into the histogram's range
// (micros).
func (r *Recorder) record(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(r.micros(d)) // cannot fail: within the histogram's range
}

// micros is d in microseconds clamped into the histograms' range, the
// value to record. Values below 1 µs are recorded as 1 µs; values above
// the range as its maximum and counted as clamped, so that no sample is
// dropped silently.
func (r *Recorder) micros(d time.Duration) int64 {
	us, clamped := clampMicros(d)
	if clamped {
		r.clamped++
	}
	return us
}

// clampMicros is d in microseconds clamped into the histograms' range,
// and whether that counts as clamped: a negative d, or one beyond the
// range (a d of 0 to 1 µs is recorded as 1 µs, not counted).
func clampMicros(d time.Duration) (us int64, clamped bool) {
	us = d.Microseconds()
	switch {
	case us < lowestMicros:
		return lowestMicros, d < 0
	case us > highestMicros:
		return highestMicros, true
	}
	return us, false
}
