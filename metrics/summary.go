package metrics

import (
	"errors"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/measure"
)

// Summary is the merged result of the recorders of one phase of a run
// cell. Histogram values are microseconds; serialize them with
// [EncodeHistogram].
type Summary struct {
	// Acquire holds the latencies of successful acquisitions, from the
	// intended start of each (coordinated-omission corrected in an open
	// loop); AcquireRaw from the actual start.
	Acquire    *hdrhistogram.Histogram `json:"-"`
	AcquireRaw *hdrhistogram.Histogram `json:"-"`
	// Release holds the latencies of releases, Hold the hold times.
	Release *hdrhistogram.Histogram `json:"-"`
	Hold    *hdrhistogram.Histogram `json:"-"`
	// Lateness holds how late the open-loop schedule started arrivals.
	Lateness *hdrhistogram.Histogram `json:"-"`

	// Acquisitions is the number of successful acquisitions (Acquire's count).
	Acquisitions   int64 `json:"acquisitions"`
	Attempts       int64 `json:"attempts"`
	FailedAttempts int64 `json:"failed_attempts"`
	Timeouts       int64 `json:"timeouts"`
	Errors         int64 `json:"errors"`
	LeaseLost      int64 `json:"lease_lost"`
	Dropped        int64 `json:"dropped"`
	StaleReleases  int64 `json:"stale_releases"`
	Crashed        int64 `json:"crashed"`
	// ErrorsByKind counts the errors recorded with [Recorder.Failed] by
	// kind, with the first message of each.
	ErrorsByKind map[string]measure.ErrorCount `json:"errors_by_kind,omitempty"`
	// Commands is left to the caller, who counts them at the connection.
	Commands int64 `json:"commands"`
	// Notes are the variant's own counters (Recorder.Note), summed.
	Notes map[string]int64 `json:"notes,omitempty"`
	// Clamped counts samples recorded at a limit of the histogram range
	// instead of at their value.
	Clamped int64 `json:"clamped"`

	// Fairness describes how acquisitions were spread over the clients.
	Fairness measure.Fairness `json:"fairness"`
	// Series has one entry per second of the phase.
	Series []measure.Second `json:"series"`
}

// Merge combines the recorders of one phase into a Summary: histograms are
// merged (percentiles are never averaged), counters and seconds summed.
// perClient are the clients' acquisition counts, for fairness.
func Merge(recs []*Recorder, perClient []int64) Summary {
	s := Summary{Acquire: newHistogram(), AcquireRaw: newHistogram(), Release: newHistogram(), Hold: newHistogram(), Lateness: newHistogram()}
	var counts [numEvents]int64
	var seconds []*hdrhistogram.Histogram
	for _, r := range recs {
		r.mu.Lock()
		s.Clamped += r.clamped + s.Acquire.Merge(r.acquireSame) + s.AcquireRaw.Merge(r.acquireSame) +
			s.Release.Merge(r.release) + s.Hold.Merge(r.hold)
		if r.acquire != nil {
			s.Clamped += s.Acquire.Merge(r.acquire) + s.AcquireRaw.Merge(r.acquireRaw)
		}
		if r.lateness != nil {
			s.Clamped += s.Lateness.Merge(r.lateness)
		}
		for e := range counts {
			counts[e] += r.counts[e]
		}
		s.ErrorsByKind = mergeErrors(s.ErrorsByKind, &r.errors)
		for name, n := range r.notes {
			if s.Notes == nil {
				s.Notes = map[string]int64{}
			}
			s.Notes[name] += n
		}
		for i, sec := range r.seconds {
			for len(s.Series) <= i {
				s.Series = append(s.Series, measure.Second{T: len(s.Series)})
				seconds = append(seconds, hdrhistogram.New(lowestMicros, highestMicros, secondFigures))
			}
			out := &s.Series[i]
			out.Acquisitions += sec.acquisitions
			out.FailedAttempts += sec.counts[Busy]
			out.Errors += sec.counts[Error]
			out.Timeouts += sec.counts[Timeout]
			out.Dropped += sec.counts[Dropped]
			seconds[i].Merge(sec.acquire)
		}
		r.mu.Unlock()
	}
	for i, h := range seconds {
		if h.TotalCount() > 0 {
			s.Series[i].AcquireP50US = float64(h.ValueAtQuantile(50))
			s.Series[i].AcquireP99US = float64(h.ValueAtQuantile(99))
			// Cannot fail: h is not nil, and encoding an in-memory
			// histogram has no other failure.
			s.Series[i].AcquireHistogram, _ = EncodeHistogram(h)
		}
	}
	s.Acquisitions = s.Acquire.TotalCount()
	s.Attempts, s.FailedAttempts, s.Timeouts = counts[Attempt], counts[Busy], counts[Timeout]
	s.Errors, s.LeaseLost, s.Dropped = counts[Error], counts[LeaseLost], counts[Dropped]
	s.StaleReleases, s.Crashed = counts[StaleRelease], counts[Crashed]
	s.Fairness = measure.FairnessOf(perClient)
	return s
}

// Quantiles returns the 50th, 90th, 99th and 99.9th percentiles, maximum and
// mean of h, in microseconds. An empty or nil histogram gives all zeros.
func Quantiles(h *hdrhistogram.Histogram) measure.Latency {
	if h == nil || h.TotalCount() == 0 {
		return measure.Latency{}
	}
	return measure.Latency{
		P50:  float64(h.ValueAtQuantile(50)),
		P90:  float64(h.ValueAtQuantile(90)),
		P99:  float64(h.ValueAtQuantile(99)),
		P999: float64(h.ValueAtQuantile(99.9)),
		Max:  float64(h.Max()),
		Mean: h.Mean(),
	}
}

// EncodeHistogram returns h in HdrHistogram's V2 compressed encoding, as
// base64 text that [DecodeHistogram] and other HdrHistogram implementations
// read.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	if h == nil {
		return "", errors.New("metrics: encode histogram: nil histogram")
	}
	encoded, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("metrics: encode histogram: %w", err)
	}
	return string(encoded), nil
}

// DecodeHistogram reads a histogram written by [EncodeHistogram].
func DecodeHistogram(encoded string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(encoded))
	if err != nil {
		return nil, fmt.Errorf("metrics: decode histogram: %w", err)
	}
	return h, nil
}
