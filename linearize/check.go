package linearize

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/lockbench/lockbench/history"
)

// Verdict is the outcome of a check.
type Verdict string

// The verdicts.
const (
	// Linearizable: some order of the operations, each at a moment within
	// its call and its return, keeps every key within its limit.
	Linearizable Verdict = "linearizable"
	// NotLinearizable: no such order exists; Result.Window shows why.
	NotLinearizable Verdict = "not linearizable"
	// Unknown: the search did not finish within the timeout and found no
	// violation before it.
	Unknown Verdict = "unknown"
)

// ErrOptions is wrapped by Check's errors about its options.
var ErrOptions = errors.New("linearize: bad options")

// DefaultTimeout bounds a check whose options give no timeout.
const DefaultTimeout = time.Minute

// batchSteps is how many steps of consecutive segments are handed to
// porcupine in one call; a batch that is not linearizable is checked again
// segment by segment.
const batchSteps = 4096

// maxWindows is how many failing segments are shrunk to windows; the
// shortest window is reported.
const maxWindows = 8

// Options configures Check.
type Options struct {
	// Limit is how many holders one key admits: 1 checks a lock, N a
	// counting semaphore. Default: the history's header's limit, or 1.
	Limit int
	// View is what is checked: history.CriticalSections (the default: the
	// protected resource, as the oracle sees it) or history.Leases (what
	// the lock vouched for).
	View history.View
	// Timeout bounds the whole check: porcupine's search of every segment
	// and the shrinking of windows. Segments not decided by then are
	// unknown. Default DefaultTimeout.
	Timeout time.Duration
}

// Result is a check's outcome.
type Result struct {
	Verdict Verdict `json:"verdict"`
	View    string  `json:"view"`
	Limit   int     `json:"limit"`
	// Keys counts the keys (lock names) with operations in the view.
	Keys int `json:"keys"`
	// Steps counts the operations checked, after leaving out those that
	// could not have mattered (failed acquires, unknown enters, …).
	Steps int `json:"steps"`
	// Segments counts the independently checked stretches of the keys'
	// histories; FailingSegments and UnknownSegments those that are not
	// linearizable and those not decided in time.
	Segments        int `json:"segments"`
	FailingSegments int `json:"failing_segments"`
	UnknownSegments int `json:"unknown_segments"`
	// FailingKeys are the keys with a failing segment, sorted.
	FailingKeys []string `json:"failing_keys,omitempty"`
	// Window is the shortest offending window found (nil unless the
	// verdict is NotLinearizable).
	Window *Window `json:"window,omitempty"`
	// Cut says the history was cut (the recorder was full): the verdict is
	// about its prefix.
	Cut bool `json:"cut"`
	// Elapsed is how long the check took. In JSON, nanoseconds.
	Elapsed time.Duration `json:"elapsed"`

	model porcupine.Model
	keys  map[string]*keySteps
}

// Check decides whether h is linearizable with respect to a lock (or a
// semaphore) of opts.Limit holders per key, in opts.View. Its error is
// about the options or a malformed history (history.ErrFormat), never
// about the verdict.
func Check(h *history.History, opts Options) (*Result, error) {
	began := time.Now()
	if opts.Limit == 0 {
		opts.Limit = max(h.Meta.Limit, 1)
	}
	if opts.Limit < 1 {
		return nil, fmt.Errorf("%w: limit %d: must be at least 1", ErrOptions, opts.Limit)
	}
	if opts.View != history.CriticalSections && opts.View != history.Leases {
		return nil, fmt.Errorf("%w: view %s: checks take critical-sections or leases", ErrOptions, opts.View)
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("%w: timeout %v: must be positive", ErrOptions, opts.Timeout)
	}
	deadline := began.Add(opts.Timeout)
	if err := h.Validate(); err != nil {
		return nil, err
	}
	keys, err := reduce(h, opts.View)
	if err != nil {
		return nil, err
	}
	res := &Result{View: opts.View.String(), Limit: opts.Limit, Keys: len(keys), Cut: h.Meta.Cut,
		model: model(opts.Limit), keys: make(map[string]*keySteps, len(keys))}
	var segs []segment
	for _, ks := range keys {
		res.keys[ks.key] = ks
		res.Steps += len(ks.steps)
		segs = append(segs, split(ks, opts.Limit)...)
	}
	res.Segments = len(segs)
	initClient := maxProcess(h) + 1
	verdicts := checkSegments(res.model, segs, initClient, deadline)

	var failing []segment
	failingKeys := map[string]bool{}
	for i, v := range verdicts {
		switch v {
		case porcupine.Illegal:
			res.FailingSegments++
			failing = append(failing, segs[i])
			failingKeys[segs[i].key.key] = true
		case porcupine.Unknown:
			res.UnknownSegments++
		}
	}
	for k := range failingKeys {
		res.FailingKeys = append(res.FailingKeys, k)
	}
	slices.Sort(res.FailingKeys)
	switch {
	case res.FailingSegments > 0:
		res.Verdict = NotLinearizable
		res.Window = shortestWindow(res.model, failing, initClient, deadline)
	case res.UnknownSegments > 0:
		res.Verdict = Unknown
	default:
		res.Verdict = Linearizable
	}
	res.Elapsed = time.Since(began)
	return res, nil
}

// checkSegments returns porcupine's verdict on each segment, checking
// consecutive segments in batches and a failing batch's segments one by
// one. Segments left when the deadline passes are Unknown.
func checkSegments(m porcupine.Model, segs []segment, initClient int, deadline time.Time) []porcupine.CheckResult {
	verdicts := make([]porcupine.CheckResult, len(segs))
	for first := 0; first < len(segs); {
		last, n := first, 0
		var ops []porcupine.Operation
		for ; last < len(segs) && (last == first || n+len(segs[last].steps) <= batchSteps); last++ {
			ops = append(ops, operations(segs[last].steps, last, initClient, false)...)
			n += len(segs[last].steps)
		}
		v := checkOps(m, ops, deadline)
		if v == porcupine.Ok || last-first == 1 {
			for i := first; i < last; i++ {
				verdicts[i] = v
			}
		} else {
			for i := first; i < last; i++ {
				verdicts[i] = checkOps(m, operations(segs[i].steps, i, initClient, false), deadline)
			}
		}
		first = last
	}
	return verdicts
}

// checkOps is porcupine's timeout-bounded check of ops, Unknown when the
// deadline has passed.
func checkOps(m porcupine.Model, ops []porcupine.Operation, deadline time.Time) porcupine.CheckResult {
	left := time.Until(deadline)
	if left <= 0 {
		return porcupine.Unknown
	}
	return porcupine.CheckOperationsTimeout(m, ops, left)
}

func maxProcess(h *history.History) int {
	p := 0
	for _, e := range h.Events {
		p = max(p, e.Process)
	}
	return p
}
