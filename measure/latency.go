package measure

// Latency is a set of quantiles of a histogram, in microseconds: the
// 50th, 90th, 99th and 99.9th percentiles, the maximum and the mean. An
// empty histogram gives all zeros.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Second is one second of a cell's measured phase.
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
	// 2 significant figures) in HdrHistogram's V2 compressed encoding,
	// base64 (metrics.EncodeHistogram): what the second's p50 and p99 come
	// from, kept so that shards' seconds merge exactly. Empty for a second
	// without acquisitions.
	AcquireHistogram string `json:"acquire_hist,omitempty"`
	// Overlaps and Holders are the oracle's: new overlaps in the second,
	// and the holders inside critical sections when it ended.
	Overlaps int64 `json:"overlaps"`
	Holders  int64 `json:"holders"`
}

// NodeCost is what one Redis node spent in a cell's measured phase.
type NodeCost struct {
	Node string `json:"node"`
	Role string `json:"role"`
	// Commands is the commands the node ran, without housekeeping; on a
	// replica, those its master replicated to it.
	Commands   int64   `json:"commands"`
	CPUSeconds float64 `json:"cpu_seconds"`
}
