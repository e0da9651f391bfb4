package metrics

import (
	"errors"
	"fmt"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
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
	ErrorsByKind map[string]ErrorCount `json:"errors_by_kind,omitempty"`
	// Commands is left to the caller, who counts them at the connection.
	Commands int64 `json:"commands"`
	// Notes are the variant's own counters (Recorder.Note), summed.
	Notes map[string]int64 `json:"notes,omitempty"`
	// Clamped counts samples recorded at a limit of the histogram range
	// instead of at their value.
	Clamped int64 `json:"clamped"`

	// Fairness describes how acquisitions were spread over the clients.
	Fairness Fairness `json:"fairness"`
	// Series has one entry per second of the phase.
	Series []Second `json:"series"`
}

// Second is one second of a phase.
type Second struct {
	// T is the second's offset from the start of the phase.
	T              int     `json:"t"`
	Acquisitions   int64   `json:"acquisitions"`
	FailedAttempts int64   `json:"failed_attempts"`
	Errors         int64   `json:"errors"`
	Timeouts       int64   `json:"timeouts"`
	Dropped        int64   `json:"dropped,omitempty"`
	AcquireP50US   float64 `json:"acquire_p50_us"`
	AcquireP99US   float64 `json:"acquire_p99_us"`
	// AcquireHistogram is the second's acquire latencies (microseconds,
	// 2 significant figures) in [EncodeHistogram]'s encoding: what the
	// second's p50 and p99 come from, kept so that shards' seconds merge
	// exactly. Empty for a second without acquisitions.
	AcquireHistogram string `json:"acquire_hist,omitempty"`
	// Overlaps and Holders are the oracle's: new overlaps in the second,
	// and the holders inside critical sections when it ended.
	Overlaps int64 `json:"overlaps"`
	Holders  int64 `json:"holders"`
}

// Fairness describes how evenly successful acquisitions were spread over the
// clients of a run cell.
type Fairness struct {
	// Clients is the number of clients.
	Clients int `json:"clients"`
	// MinPerClient and MaxPerClient are the fewest and most acquisitions of
	// any one client.
	MinPerClient int64 `json:"min_per_client"`
	MaxPerClient int64 `json:"max_per_client"`
	// Jain is Jain's fairness index (Σx)²/(n·Σx²) over the per-client
	// acquisition counts: 1 when all are equal, 1/n when one client got
	// everything. Without a single acquisition the index is undefined
	// (0/0): it is then 1 here, and [Fairness.Defined] is false.
	Jain float64 `json:"jain"`
	// PerClient are the acquisitions of each client, in client order
	// (the charts of lockbench report); empty in older records.
	PerClient []int64 `json:"per_client,omitempty"`
}

// Defined reports whether Jain's index means something: some client
// acquired. A cell in which no client acquired was neither fair nor
// unfair.
func (f Fairness) Defined() bool { return f.MaxPerClient > 0 }

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
				s.Series = append(s.Series, Second{T: len(s.Series)})
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
	s.Fairness = fairnessOf(perClient)
	return s
}

// FairnessOf computes the fairness of per-client acquisition counts.
func FairnessOf(perClient []int64) Fairness { return fairnessOf(perClient) }

// fairnessOf computes the fairness of per-client acquisition counts.
func fairnessOf(perClient []int64) Fairness {
	f := Fairness{Clients: len(perClient), Jain: 1, PerClient: slices.Clone(perClient)}
	if len(perClient) == 0 {
		return f
	}
	f.MinPerClient, f.MaxPerClient = perClient[0], perClient[0]
	var sum, sumOfSquares float64
	for _, n := range perClient {
		f.MinPerClient = min(f.MinPerClient, n)
		f.MaxPerClient = max(f.MaxPerClient, n)
		x := float64(n)
		sum += x
		sumOfSquares += x * x
	}
	if sumOfSquares > 0 {
		f.Jain = sum * sum / (float64(len(perClient)) * sumOfSquares)
	}
	return f
}

// Latency is a set of quantiles of a histogram, in microseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Quantiles returns the 50th, 90th, 99th and 99.9th percentiles, maximum and
// mean of h, in microseconds. An empty or nil histogram gives all zeros.
func Quantiles(h *hdrhistogram.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
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
