package measure

// ErrorCount is how often one kind of error happened in a cell, with the
// message of the first. A cell counts its errors by kind: the Redis error
// prefix (OOM, READONLY, MOVED, ...), or timeout, connection refused,
// connection reset, EOF, other.
type ErrorCount struct {
	Count  int64  `json:"count"`
	Sample string `json:"sample"`
}

// SumErrors adds the error counts of b to a's, kind by kind, into a new
// map (a's may be an input's); a kind's sample is a's, or b's where a has
// none. nil when both are empty.
func SumErrors(a, b map[string]ErrorCount) map[string]ErrorCount {
	if len(a)+len(b) == 0 {
		return nil
	}
	sum := make(map[string]ErrorCount, len(a)+len(b))
	for _, m := range []map[string]ErrorCount{a, b} {
		for kind, c := range m {
			had, ok := sum[kind]
			if !ok || had.Sample == "" {
				had.Sample = c.Sample
			}
			had.Count += c.Count
			sum[kind] = had
		}
	}
	return sum
}
