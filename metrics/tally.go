package metrics

import "time"

// DefaultTallyEvents is how many events a Tally keeps by default before it
// adds them to its recorder: about fifty cycles of a closed loop (four or
// five events each), in 1 KB.
const DefaultTallyEvents = 256

// A kept event is one uint32: its kind in the top tallyKindBits bits, its
// value (microseconds, already clamped into the histograms' range, or a
// second of the series) in the others. A cycle of a closed loop keeps four
// or five, 16 to 20 bytes: the client's cost of recording is the few cache
// lines those take, and the histograms' lines are touched once per batch.
const (
	tallyKindBits  = 5
	tallyValueBits = 32 - tallyKindBits
	tallyValueMask = 1<<tallyValueBits - 1
)

// highestMicros must fit in a kept value.
var _ [tallyValueMask - highestMicros]struct{}

// tallyKind says what a kept event is.
type tallyKind uint32

const (
	tallySecond          tallyKind = iota // the later events' second of the series
	tallyAcquiredSame                     // an acquisition whose latency and raw latency are the same
	tallyAcquiredLatency                  // an acquisition's latency, its raw latency next
	tallyAcquiredRaw                      // the raw latency of the acquisition before
	tallyBusy                             // a busy try (no value)
	tallyHeld                             // a hold time
	tallyReleased                         // a release latency
	tallyLate                             // how late an open-loop arrival started
	tallyValidity                         // margins: validity left
	tallyExpired                          // margins: validity left of a lease expired on arrival (the floor)
	tallyLateHold                         // margins: late time of a hold
	tallyLateNotice                       // margins: loss notice delay after the expiry
)

// Tally is one client's recording in front of its stripe's [Recorder] and
// [Margins]: it keeps the client's latest events, four bytes each, and adds
// them to the recorder (and the margins) at once, under one lock, when it
// is full, when it moves to another recorder ([Tally.To], at the end of
// the warm-up) and at [Tally.Flush]. The histograms are touched by one
// core for a batch at a time instead of one event at a time by every
// client of the stripe, and the stripe's mutexes are taken once per batch;
// once flushed, a recorder holds what it would hold had each event been
// recorded in it directly, clamped values and the count of them included.
//
// A Tally is not safe for concurrent use: its client's goroutine records
// into it (the rarer events — errors, timeouts, lost leases, notes — go
// to the Recorder directly). Nothing it keeps counts until it is flushed:
// flush it before the recorders are merged. It does not allocate.
type Tally struct {
	rec     *Recorder
	margins *Margins // nil: margin events are not kept
	// second is the second of the latest tallySecond kept, -1 for none
	// since the last flush.
	second int
	n      int
	events []uint32
	// Counted, not kept: tries (Attempted), values clamped (of the
	// recorder, of the margins), holds and notices in time.
	attempts, clamped, marginClamped int64
	holdsInTime, noticesInTime       int64
}

// NewTally returns a tally that keeps up to events events (4 bytes each;
// DefaultTallyEvents when events <= 0), whose margin events go to margins
// (nil for none: they are dropped). Call To before the first event.
func NewTally(margins *Margins, events int) *Tally {
	if events <= 0 {
		events = DefaultTallyEvents
	}
	// Room for the events of one call (an acquisition, after a second)
	// in every batch.
	events = max(events, 4)
	return &Tally{margins: margins, second: -1, events: make([]uint32, events)}
}

// To makes r the recorder of the events from now on, after flushing those
// kept for another.
func (t *Tally) To(r *Recorder) {
	if r != t.rec {
		t.Flush()
		t.rec = r
	}
}

// Recorder is the recorder the events go to.
func (t *Tally) Recorder() *Recorder { return t.rec }

// Attempted is Recorder.Attempted.
func (t *Tally) Attempted() { t.attempts++ }

// AttemptedBusy is Recorder.AttemptedBusy.
func (t *Tally) AttemptedBusy(at time.Time) {
	t.room(2)
	t.at(at)
	t.keep(tallyBusy, 0)
}

// Acquired is Recorder.Acquired.
func (t *Tally) Acquired(at time.Time, latency, raw time.Duration) {
	us, rawUS := t.micros(latency), t.micros(raw)
	t.room(3)
	t.at(at)
	if us == rawUS {
		t.keep(tallyAcquiredSame, us)
		return
	}
	t.keep(tallyAcquiredLatency, us)
	t.keep(tallyAcquiredRaw, rawUS)
}

// Held is Recorder.Held.
func (t *Tally) Held(d time.Duration) { t.add(tallyHeld, t.micros(d)) }

// Released is Recorder.Released.
func (t *Tally) Released(d time.Duration) { t.add(tallyReleased, t.micros(d)) }

// Late is Recorder.Late.
func (t *Tally) Late(d time.Duration) { t.add(tallyLate, t.micros(d)) }

// ValidityLeft is Margins.Acquired, nothing without margins.
func (t *Tally) ValidityLeft(left time.Duration) {
	if t.margins == nil {
		return
	}
	kind := tallyValidity
	if left <= 0 {
		kind = tallyExpired
	}
	t.add(kind, t.marginMicros(left))
}

// Exited is Margins.Exited, nothing without margins.
func (t *Tally) Exited(late time.Duration) { t.lateness(late, &t.holdsInTime, tallyLateHold) }

// Noticed is Margins.Noticed, nothing without margins.
func (t *Tally) Noticed(delay time.Duration) {
	t.lateness(delay, &t.noticesInTime, tallyLateNotice)
}

// lateness counts d, how late something came, in inTime when it was not
// late, else keeps it as an event of kind; nothing without margins.
func (t *Tally) lateness(d time.Duration, inTime *int64, kind tallyKind) {
	switch {
	case t.margins == nil:
	case d <= 0:
		*inTime++
	default:
		t.add(kind, t.marginMicros(d))
	}
}

// micros is Recorder.micros, its clamps counted here.
func (t *Tally) micros(d time.Duration) int64 {
	us, clamped := clampMicros(d)
	if clamped {
		t.clamped++
	}
	return us
}

// marginMicros is Margins.record's value, its clamps counted here.
func (t *Tally) marginMicros(d time.Duration) int64 {
	us, clamped := clampMarginMicros(d)
	if clamped {
		t.marginClamped++
	}
	return us
}

// at keeps at's second of the series if the events before were of
// another; call it after room.
func (t *Tally) at(at time.Time) {
	if s := min(t.rec.secondOf(at), tallyValueMask); s != t.second {
		t.second = s
		t.keep(tallySecond, int64(s))
	}
}

// room flushes the tally unless it has room for n more events.
func (t *Tally) room(n int) {
	if t.n+n > len(t.events) {
		t.Flush()
	}
}

func (t *Tally) add(kind tallyKind, value int64) {
	t.room(1)
	t.keep(kind, value)
}

func (t *Tally) keep(kind tallyKind, value int64) {
	t.events[t.n] = uint32(kind)<<tallyValueBits | uint32(value)
	t.n++
}

// Flush adds the events kept to the recorder and the margins.
func (t *Tally) Flush() {
	if t.n == 0 && t.attempts == 0 && t.clamped == 0 && t.holdsInTime == 0 && t.noticesInTime == 0 {
		return
	}
	kept := t.events[:t.n]
	margins := t.marginClamped+t.holdsInTime+t.noticesInTime > 0
	r := t.rec
	r.mu.Lock()
	r.counts[Attempt] += t.attempts
	r.clamped += t.clamped
	var s *second
	latency := int64(0) // of a tallyAcquiredLatency, for the raw one next
	for _, e := range kept {
		value := int64(e & tallyValueMask)
		switch tallyKind(e >> tallyValueBits) {
		case tallySecond:
			s = r.second(int(value))
		case tallyAcquiredSame:
			s.acquisitions++
			_ = s.acquire.RecordValue(value) // within the range, as every value kept
			_ = r.acquireSame.RecordValue(value)
		case tallyAcquiredLatency:
			s.acquisitions++
			_ = s.acquire.RecordValue(value)
			latency = value
		case tallyAcquiredRaw:
			r.acquiredApart(latency, value)
		case tallyBusy:
			r.counts[Attempt]++
			r.counts[Busy]++
			s.counts[Busy]++
		case tallyHeld:
			_ = r.hold.RecordValue(value)
		case tallyReleased:
			_ = r.release.RecordValue(value)
		case tallyLate:
			r.lateMicros(value)
		default:
			margins = true
		}
	}
	r.mu.Unlock()
	if m := t.margins; margins && m != nil {
		m.mu.Lock()
		m.counts.Clamped += t.marginClamped
		m.counts.Holds += t.holdsInTime
		m.counts.Notices += t.noticesInTime
		for _, e := range kept {
			value := int64(e & tallyValueMask)
			switch tallyKind(e >> tallyValueBits) {
			case tallyExpired:
				m.counts.ExpiredAtAcquire++
				_ = m.validityLeft.RecordValue(value)
			case tallyValidity:
				_ = m.validityLeft.RecordValue(value)
			case tallyLateHold:
				m.counts.Holds++
				m.counts.LateHolds++
				_ = m.late.RecordValue(value)
			case tallyLateNotice:
				m.counts.Notices++
				m.counts.LateNotices++
				_ = m.notice.RecordValue(value)
			}
		}
		m.mu.Unlock()
	}
	t.n, t.second = 0, -1
	t.attempts, t.clamped, t.marginClamped, t.holdsInTime, t.noticesInTime = 0, 0, 0, 0, 0
}
