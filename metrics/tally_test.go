package metrics

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// tallied is one event of a client, as the workload records it.
type tallied struct {
	kind      int // 0 attempt, 1 busy, 2 acquired, 3 held, 4 released, 5 late, 6 validity, 7 exited, 8 noticed
	at        time.Time
	a, b      time.Duration
	recorder2 bool // to the second recorder (the measured phase)
}

// randomEvents are n events of a client over a few seconds: closed- and
// open-loop acquisitions, every kind of value, below, within and above the
// histograms' range, the later ones to a second recorder.
func randomEvents(rnd *rand.Rand, start time.Time, n int) []tallied {
	values := []time.Duration{-time.Millisecond, -time.Nanosecond, 0, 500 * time.Nanosecond, time.Microsecond,
		37 * time.Microsecond, 3 * time.Millisecond, 9 * time.Second, 2 * time.Hour}
	value := func() time.Duration {
		if rnd.IntN(3) == 0 {
			return values[rnd.IntN(len(values))]
		}
		return time.Duration(rnd.Int64N(int64(5 * time.Millisecond)))
	}
	events := make([]tallied, n)
	at := start
	for i := range events {
		at = at.Add(time.Duration(rnd.Int64N(int64(20 * time.Millisecond))))
		e := tallied{kind: rnd.IntN(9), at: at, a: value(), b: value(), recorder2: i > n/2}
		if e.kind == 2 && rnd.IntN(2) == 0 {
			e.b = e.a // a closed loop's
		}
		events[i] = e
	}
	return events
}

// eventSink is what the workload records a client's events into: a Tally,
// or, for comparison, a directSink.
type eventSink interface {
	To(*Recorder)
	Attempted()
	AttemptedBusy(at time.Time)
	Acquired(at time.Time, latency, raw time.Duration)
	Held(time.Duration)
	Released(time.Duration)
	Late(time.Duration)
	ValidityLeft(time.Duration)
	Exited(time.Duration)
	Noticed(time.Duration)
}

// directSink records each event at once, into its recorder and margins.
type directSink struct {
	*Recorder
	margins *Margins
}

func (d *directSink) To(r *Recorder)                  { d.Recorder = r }
func (d *directSink) ValidityLeft(left time.Duration) { d.margins.Acquired(left) }
func (d *directSink) Exited(late time.Duration)       { d.margins.Exited(late) }
func (d *directSink) Noticed(delay time.Duration)     { d.margins.Noticed(delay) }

// replay records events into sink, each to recorders[0], or recorders[1]
// when it is of the second recorder.
func replay(sink eventSink, recorders []*Recorder, events []tallied) {
	for _, e := range events {
		if e.recorder2 {
			sink.To(recorders[1])
		} else {
			sink.To(recorders[0])
		}
		switch e.kind {
		case 0:
			sink.Attempted()
		case 1:
			sink.AttemptedBusy(e.at)
		case 2:
			sink.Acquired(e.at, e.a, e.b)
		case 3:
			sink.Held(e.a)
		case 4:
			sink.Released(e.a)
		case 5:
			sink.Late(e.a)
		case 6:
			sink.ValidityLeft(e.a)
		case 7:
			sink.Exited(e.a)
		case 8:
			sink.Noticed(e.a)
		}
	}
}

// A Tally adds up to what recording each event directly gives: the same
// histograms, counts, clamps, series and margins, however many events it
// keeps at a time.
func TestTallyRecordsWhatTheRecorderWould(t *testing.T) {
	for _, size := range []int{1, 5, 64, DefaultTallyEvents} {
		rnd := rand.New(rand.NewPCG(1, uint64(size)))
		start := time.Now()
		events := randomEvents(rnd, start, 5000)

		direct := []*Recorder{NewRecorder(start), NewRecorder(start.Add(time.Second))}
		directMargins := NewMargins()
		replay(&directSink{margins: directMargins}, direct, events)
		tallied := []*Recorder{NewRecorder(start), NewRecorder(start.Add(time.Second))}
		talliedMargins := NewMargins()
		tally := NewTally(talliedMargins, size)
		replay(tally, tallied, events)
		tally.Flush()

		for i := range direct {
			want, got := Merge(direct[i:i+1], nil), Merge(tallied[i:i+1], nil)
			if want.Acquisitions == 0 || want.Clamped == 0 {
				t.Fatalf("recorder %d: %d acquisitions, %d clamped: the events do not cover the cases", i, want.Acquisitions, want.Clamped)
			}
			sameSummary(t, size, want, got)
		}
		want, _ := MergeMargins([]*Margins{directMargins})
		got, _ := MergeMargins([]*Margins{talliedMargins})
		if want.MarginCounts != got.MarginCounts {
			t.Errorf("size %d: margin counts %+v, want %+v", size, got.MarginCounts, want.MarginCounts)
		}
		for name, h := range map[string][2]*hdrhistogram.Histogram{
			"validity left": {want.ValidityLeft, got.ValidityLeft}, "late": {want.Late, got.Late}, "notice": {want.LossNotice, got.LossNotice},
		} {
			if !h[0].Equals(h[1]) || h[0].TotalCount() == 0 {
				t.Errorf("size %d: margins' %s histogram differs (or is empty: %d values)", size, name, h[0].TotalCount())
			}
		}
	}
}

func sameSummary(t *testing.T, size int, want, got Summary) {
	t.Helper()
	for name, h := range map[string][2]*hdrhistogram.Histogram{
		"acquire": {want.Acquire, got.Acquire}, "raw": {want.AcquireRaw, got.AcquireRaw}, "release": {want.Release, got.Release},
		"hold": {want.Hold, got.Hold}, "lateness": {want.Lateness, got.Lateness},
	} {
		if !h[0].Equals(h[1]) {
			t.Errorf("size %d: %s histogram differs: %d values, want %d", size, name, h[1].TotalCount(), h[0].TotalCount())
		}
	}
	want.Acquire, want.AcquireRaw, want.Release, want.Hold, want.Lateness = nil, nil, nil, nil, nil
	got.Acquire, got.AcquireRaw, got.Release, got.Hold, got.Lateness = nil, nil, nil, nil, nil
	if !reflect.DeepEqual(want, got) {
		t.Errorf("size %d: summary\n%+v\nwant\n%+v", size, got, want)
	}
}

// Nothing kept counts before the flush; To flushes what was kept for the
// recorder before.
func TestTallyFlushes(t *testing.T) {
	start := time.Now()
	warm, measured := NewRecorder(start), NewRecorder(start)
	tally := NewTally(nil, 0)
	tally.To(warm)
	tally.Attempted()
	tally.Acquired(start, time.Millisecond, time.Millisecond)
	if n := warm.Acquisitions(); n != 0 {
		t.Errorf("%d acquisitions recorded before the flush, want 0", n)
	}
	tally.To(measured)
	if n := warm.Acquisitions(); n != 1 {
		t.Errorf("%d acquisitions recorded after moving on, want 1", n)
	}
	tally.Acquired(start, time.Millisecond, 2*time.Millisecond)
	tally.ValidityLeft(time.Second) // no margins: dropped
	tally.Flush()
	if n := measured.Acquisitions(); n != 1 {
		t.Errorf("%d acquisitions in the second recorder, want 1", n)
	}
	if got := Merge([]*Recorder{warm, measured}, nil); got.Attempts != 1 || got.Acquisitions != 2 {
		t.Errorf("%d attempts, %d acquisitions, want 1 and 2", got.Attempts, got.Acquisitions)
	}
}

// Recording into a tally allocates nothing, flushes included.
func TestTallyDoesNotAllocate(t *testing.T) {
	start := time.Now()
	r := NewRecorder(start)
	r.Acquired(start, time.Millisecond, time.Millisecond) // the second's histogram exists now
	tally := NewTally(NewMargins(), 8)
	tally.To(r)
	if n := testing.AllocsPerRun(1000, func() {
		tally.Attempted()
		tally.Acquired(start, time.Millisecond, time.Millisecond)
		tally.ValidityLeft(time.Second)
		tally.Exited(-time.Second)
		tally.Held(time.Microsecond)
		tally.Released(100 * time.Microsecond)
	}); n != 0 {
		t.Errorf("%v allocations per cycle, want 0", n)
	}
}

// BenchmarkCycleRecorded is what recording one closed-loop cycle with
// margins costs (an attempt, an acquisition, a validity, a hold, an exit
// and a release): direct, into the recorder and margins of a stripe, and
// through a client's tally; -shared, with the goroutines of
// RunParallel (8 per core) as the clients of one stripe.
func BenchmarkCycleRecorded(b *testing.B) {
	cycle := func(r *Recorder, m *Margins, start time.Time, latency time.Duration) {
		r.Attempted()
		r.Acquired(start, latency, latency)
		m.Acquired(9 * time.Second)
		r.Held(time.Microsecond)
		m.Exited(-9 * time.Second)
		r.Released(latency / 2)
	}
	tallied := func(t *Tally, start time.Time, latency time.Duration) {
		t.Attempted()
		t.Acquired(start, latency, latency)
		t.ValidityLeft(9 * time.Second)
		t.Held(time.Microsecond)
		t.Exited(-9 * time.Second)
		t.Released(latency / 2)
	}
	latency := func(i int) time.Duration { return time.Duration(100+i%400) * time.Microsecond }
	for _, shared := range []bool{false, true} {
		name := ""
		if shared {
			name = "-shared"
		}
		b.Run("direct"+name, func(b *testing.B) {
			start := time.Now()
			r, m := NewRecorder(start), NewMargins()
			b.ReportAllocs()
			if !shared {
				i := 0
				for b.Loop() {
					cycle(r, m, start, latency(i))
					i += 37
				}
				return
			}
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i += 37 {
					cycle(r, m, start, latency(i))
				}
			})
		})
		b.Run("tally"+name, func(b *testing.B) {
			start := time.Now()
			r, m := NewRecorder(start), NewMargins()
			b.ReportAllocs()
			if !shared {
				t := NewTally(m, 0)
				t.To(r)
				i := 0
				for b.Loop() {
					tallied(t, start, latency(i))
					i += 37
				}
				t.Flush()
				return
			}
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				t := NewTally(m, 0)
				t.To(r)
				for i := 0; pb.Next(); i += 37 {
					tallied(t, start, latency(i))
				}
				t.Flush()
			})
		})
	}
}
