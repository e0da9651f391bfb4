package measure

import (
	"slices"
	"strconv"
)

// Fairness describes how evenly successful acquisitions were spread over
// the clients of a cell.
type Fairness struct {
	// Clients is the number of clients.
	Clients int `json:"clients"`
	// MinPerClient and MaxPerClient are the fewest and most acquisitions of
	// any one client.
	MinPerClient int64 `json:"min_per_client"`
	MaxPerClient int64 `json:"max_per_client"`
	// Jain is Jain's fairness index (Σx)²/(n·Σx²) over the per-client
	// acquisition counts: 1 when all are equal, 1/n when one client got
	// everything. It is undefined when no client acquired (0/0): then 0,
	// absent from the JSON, empty in CSV and shown as "-" (see Defined,
	// JainText).
	Jain float64 `json:"jain,omitempty"`
	// PerClient are the acquisitions of each client, in client order
	// (the charts of lockbench report); empty in older records.
	PerClient []int64 `json:"per_client,omitempty"`
}

// FairnessOf computes the fairness of per-client acquisition counts; Jain
// is 0 (undefined) when no client acquired.
func FairnessOf(perClient []int64) Fairness {
	f := Fairness{Clients: len(perClient), PerClient: slices.Clone(perClient)}
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

// Defined reports whether Jain's index means something: some client
// acquired. A cell in which no client acquired was neither fair nor
// unfair. (Records written before undefined indexes were left out say 1
// for such a cell; their MaxPerClient of 0 says what it was.)
func (f Fairness) Defined() bool { return f.Jain > 0 && f.MaxPerClient > 0 }

// JainText is Jain's index as a table shows it: three decimals, "-" when
// undefined.
func (f Fairness) JainText() string {
	if !f.Defined() {
		return "-"
	}
	return strconv.FormatFloat(f.Jain, 'f', 3, 64)
}
