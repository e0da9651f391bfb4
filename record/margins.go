package record

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
)

// Margins say how close the leases of an expiring lock came to breaking,
// over the whole cell (warm-up included, like Violations). A lease's
// expiry is estimated conservatively: the send time of the acquire's
// successful try (the end of its last busy try, or its call) plus the TTL,
// or the variant's own validity (Redlock), or a TTL after the send of its
// latest successful renewal (watchdog). docs/history.md defines each
// figure.
type Margins struct {
	// TTLMS is the lease time the margins are measured against: the run's
	// --ttl, or the variant's own default.
	TTLMS float64 `json:"ttl_ms"`
	// ValidityLeftUS is, at each acquisition's return, how long its lease
	// had left; ExpiredAtAcquire counts those with none left (recorded as
	// 1 µs).
	ValidityLeftUS   measure.Latency `json:"validity_left_us"`
	ExpiredAtAcquire int64           `json:"expired_at_acquire"`
	// Holds counts the critical sections whose end was measured; LateHolds
	// those that ended after their lease had expired, LateUS by how much.
	Holds     int64           `json:"holds"`
	LateHolds int64           `json:"late_holds"`
	LateUS    measure.Latency `json:"late_us"`
	// Notices counts holders told during their hold that their lease was
	// lost (Lease.Lost, the renewing variants); LateNotices those told
	// after it had expired, LossNoticeUS how long after.
	Notices      int64           `json:"notices"`
	LateNotices  int64           `json:"late_notices"`
	LossNoticeUS measure.Latency `json:"loss_notice_us"`
}

// HistoryInfo says what became of a cell's history (run --history): how
// much of it was kept, where it was written, and porcupine's verdict on it
// (--check-history).
type HistoryInfo struct {
	// Events is how many events the history kept; Dropped how many were
	// left out when the recorder was full, which Cut then says: the
	// history is a prefix of the cell.
	Events  int64 `json:"events"`
	Dropped int64 `json:"dropped"`
	Cut     bool  `json:"cut"`
	// Path is the JSON-lines file (lockbench check reads it); the EDN form
	// is beside it with the extension .edn. Empty when the history was
	// kept in memory only.
	Path string `json:"path,omitempty"`
	// Error is why the history could not be written.
	Error string `json:"error,omitempty"`
	// Check is the linearizability check's verdict; nil when none ran.
	Check *HistoryCheck `json:"check,omitempty"`
}

// The verdicts of a history check, as package linearize names them.
const (
	VerdictLinearizable    = "linearizable"
	VerdictNotLinearizable = "not linearizable"
	VerdictUnknown         = "unknown"
)

// HistoryCheck is porcupine's verdict on a cell's history, beside the
// oracle's counts.
type HistoryCheck struct {
	// Verdict is linearizable, not linearizable, or unknown (the search
	// did not finish in time); Error, when set, why there is none.
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
	// View is what was checked: critical-sections (what the oracle
	// checks) or leases.
	View string `json:"view"`
	// FailingKeys are the lock names with a violation; FailingSegments how
	// many independent stretches of them failed (about one per violation).
	FailingKeys     []string `json:"failing_keys,omitempty"`
	FailingSegments int      `json:"failing_segments,omitempty"`
	// Window is the shortest offending window; nil unless not
	// linearizable.
	Window *HistoryWindow `json:"window,omitempty"`
	// ElapsedMS is how long the check took.
	ElapsedMS float64 `json:"elapsed_ms"`
}

// HistoryWindow is a smallest set of leases whose operations cannot be
// linearized: two holders at once, for a lock.
type HistoryWindow struct {
	Key string `json:"key"`
	// Leases name each lease by the index of its acquire's invocation in
	// the history; Processes are the clients that held them.
	Leases    []int `json:"leases"`
	Processes []int `json:"processes"`
	// FromNS and ToNS span its operations, in ns since the cell's start.
	FromNS int64 `json:"from_ns"`
	ToNS   int64 `json:"to_ns"`
	// Ops are its operations, e.g. "p1 enter lock:0 #12-15 ok".
	Ops []string `json:"ops"`
}

// verdictRank orders verdicts from best to worst, for a merge.
func verdictRank(v string) int {
	switch v {
	case VerdictLinearizable:
		return 0
	case VerdictUnknown, "":
		return 1
	}
	return 2
}

// mergeMargins merges b's margins into a's, from their merged histograms;
// a cell without margins makes the merge's none (its sum would be short).
func mergeMargins(a, b *Cell, w witnessing) error {
	if a.Margins == nil || b.Margins == nil {
		a.Margins = nil
		a.Histograms.ValidityLeft, a.Histograms.Late, a.Histograms.LossNotice = "", "", ""
		return nil
	}
	m := *a.Margins // not the input's
	mergeFields(reflect.ValueOf(&m).Elem(), reflect.ValueOf(b.Margins).Elem(), "Margins.", w)
	for _, h := range []struct {
		into *string
		from string
		lat  *measure.Latency
	}{
		{&a.Histograms.ValidityLeft, b.Histograms.ValidityLeft, &m.ValidityLeftUS},
		{&a.Histograms.Late, b.Histograms.Late, &m.LateUS},
		{&a.Histograms.LossNotice, b.Histograms.LossNotice, &m.LossNoticeUS},
	} {
		if h.from == "" {
			continue
		}
		if *h.into == "" {
			*h.into = h.from
			continue
		}
		merged, err := mergeEncoded(*h.into, h.from)
		if err != nil {
			return fmt.Errorf("record: merge %s margins: %w", a.Variant, err)
		}
		if *h.into, err = metrics.EncodeHistogram(merged); err != nil {
			return err
		}
		*h.lat = metrics.Quantiles(merged)
	}
	a.Margins = &m
	return nil
}

// mergeHistory merges b's history information into a's: counts summed,
// the worse verdict kept (with its window), the first's path. A cell
// without a history makes the merge's none.
func mergeHistory(a, b *Cell, w witnessing) {
	if a.History == nil || b.History == nil {
		a.History = nil
		return
	}
	h := *a.History
	mergeFields(reflect.ValueOf(&h).Elem(), reflect.ValueOf(b.History).Elem(), "History.", w)
	switch {
	case b.History.Check == nil:
	case h.Check == nil || verdictRank(b.History.Check.Verdict) > verdictRank(h.Check.Verdict):
		check := *b.History.Check
		h.Check = &check
	}
	if h.Check != nil {
		check := *h.Check
		check.FailingKeys = slices.Clone(check.FailingKeys)
		h.Check = &check
	}
	a.History = &h
}
