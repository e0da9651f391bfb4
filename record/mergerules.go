package record

import (
	"reflect"

	"github.com/lockbench/lockbench/measure"
)

// mergeRule says how Merge combines a field of two cells that are one
// cell's parts (side by side runs, or shards of one run).
type mergeRule int

const (
	// named: the field names or describes the cell (its key, its
	// variant's settings): the same in both, the first's kept.
	named mergeRule = iota + 1
	// kept: the first cell's is kept, deliberately (the doc of
	// cellMergeRules says why).
	kept
	// summed: added up (numbers; maps of counts, name by name).
	summed
	// largest and smallest: the larger (smaller) of the two.
	largest
	smallest
	// either: true when it is in either cell.
	either
	// appended: the second's after the first's, in a new slice.
	appended
	// oracleSummed and oracleLargest are the oracle's figures: summed
	// (the larger kept) when each cell's oracle saw its own clients only;
	// when both read one witness they are every shard's already, and the
	// cell that read the witness later (more shards done) gives them.
	oracleSummed
	oracleLargest
	// kindsSummed: a map of ErrorCount, counts added kind by kind, the
	// first cell's sample kept (the second's for a kind the first has not).
	kindsSummed
	// parts: a struct (or pointer to one, or slice of them) whose fields
	// merge by their own rules, under the field's name and a dot.
	parts
	// custom: merged by mergeCell's (or Merge's) own code.
	custom
)

// cellMergeRules is how every field of Cell merges, nested fields under
// their parent's name and a dot. A field missing here fails the merge
// tests: a new figure must say how it merges.
//
// Kept deliberately: LatenessUS, whose histogram the record does not
// keep (the first's quantiles stand); Driver, the same in both but for
// its library's acquire times, whose histogram is not kept either, and
// its processes' CPU (the first's); Error (a cell that failed in one
// record stays failed); Server.Nodes (the nodes of the first; the
// records ran against the same servers).
var cellMergeRules = map[string]mergeRule{
	"Variant": named, "Client": named, "Topology": named, "Product": named, "Keys": named, "Repetition": named, "Limit": named,
	"Settings": named, "Fencing": named,
	// The same driver in both; its library's acquire times are the
	// first's quantiles (the record keeps no histogram of them).
	"Driver": kept,
	// Summed across the shards of one run, by Merge; the same otherwise.
	"Clients": custom,
	// Appended across the shards of one run, by Merge.
	"ClockOffsetsMS": custom,
	"Interrupted":    either,
	"Error":          kept,

	"ElapsedS": largest, "Acquisitions": summed, "ThroughputPerS": summed, "ClientCPUSeconds": summed,
	// From the merged histograms.
	"AcquireLatencyUS": custom, "AcquireLatencyRawUS": custom, "ReleaseLatencyUS": custom,
	"HoldTimeUS": custom, "HandoffLatencyUS": custom, "Histograms": custom,
	"OfferedPerS": summed, "Dropped": summed, "LatenessUS": kept,

	"Attempts": summed, "FailedAttempts": summed, "Timeouts": summed, "Errors": summed, "Commands": summed,
	"ErrorsByKind": kindsSummed,
	// Commands over acquisitions, once both are summed.
	"CommandsPerAcquisition": custom,
	"Counters":               summed,

	// Dropped unless both cells have one; the per-acquisition figures
	// are related to the summed acquisitions again.
	"Server":                         parts,
	"ServerNote":                     kept,
	"Server.Commands":                summed,
	"Server.ByCommand":               summed,
	"Server.Housekeeping":            summed,
	"Server.CPUSeconds":              summed,
	"Server.Nodes":                   kept,
	"Server.CommandsPerAcquisition":  custom,
	"Server.ScriptRuns":              custom,
	"Server.CPUMicrosPerAcquisition": custom,
	"Server.AcquisitionsPerCore":     custom,

	// Recomputed from the clients' counts when every count is known.
	"Fairness":              parts,
	"Fairness.Clients":      summed,
	"Fairness.MinPerClient": smallest,
	"Fairness.MaxPerClient": largest,
	"Fairness.Jain":         smallest,
	"Fairness.PerClient":    appended,

	// What the clients saw adds up; what the oracle saw adds up too,
	// unless every shard read it from one witness.
	"Violations":                      parts,
	"Violations.Overlaps":             oracleSummed,
	"Violations.MaxOccupancy":         oracleLargest,
	"Violations.TimeOverLimitMS":      oracleSummed,
	"Violations.LostUpdates":          oracleSummed,
	"Violations.CriticalSections":     oracleSummed,
	"Violations.LeaseLost":            summed,
	"Violations.Abandoned":            oracleSummed,
	"Violations.StaleReleases":        summed,
	"Violations.StaleWrites":          oracleSummed,
	"Violations.RejectedWrites":       oracleSummed,
	"Violations.LongestUnavailableMS": oracleLargest,
	"Violations.Crashed":              summed,

	// Both cells have one, or neither (see mergeWitness).
	"Witness":              parts,
	"Witness.Done":         largest,
	"Witness.Absent":       custom, // the union, sorted
	"Witness.Failures":     summed,
	"Witness.FirstFailure": custom, // the first's, or the second's when the first has none

	"Warmup":              parts,
	"Warmup.Acquisitions": summed,
	"Warmup.Errors":       summed,
	"Warmup.Timeouts":     summed,

	// Second by second.
	"Series":                  parts,
	"Series.T":                named,
	"Series.Acquisitions":     summed,
	"Series.FailedAttempts":   summed,
	"Series.Errors":           summed,
	"Series.Timeouts":         summed,
	"Series.Dropped":          summed,
	"Series.AcquireP50US":     custom, // from the merged histogram (see mergeSecond)
	"Series.AcquireP99US":     custom,
	"Series.AcquireHistogram": custom,
	"Series.Overlaps":         oracleSummed,
	"Series.Holders":          oracleSummed,

	"Faults": appended,

	// Dropped unless both cells have them (see mergeMargins); the
	// quantiles come from the merged histograms.
	"Margins":                  parts,
	"Margins.TTLMS":            named,
	"Margins.ValidityLeftUS":   custom,
	"Margins.ExpiredAtAcquire": summed,
	"Margins.Holds":            summed,
	"Margins.LateHolds":        summed,
	"Margins.LateUS":           custom,
	"Margins.Notices":          summed,
	"Margins.LateNotices":      summed,
	"Margins.LossNoticeUS":     custom,

	// Each process records its own history. Dropped unless both cells
	// have one (see mergeHistory); the path is the first's, the worse
	// verdict is kept with its window.
	"History":         parts,
	"History.Events":  summed,
	"History.Dropped": summed,
	"History.Cut":     either,
	"History.Path":    kept,
	"History.Error":   kept,
	"History.Check":   custom,
}

// witnessing says whose oracle figures a merge keeps.
type witnessing int

const (
	unwitnessed witnessing = iota // each cell's own: they add up
	witnessedA                    // one witness's, read last by the first cell
	witnessedB                    // one witness's, read last by the second cell
)

// mergeFields merges b into a, two structs of the type whose fields
// cellMergeRules names under prefix, by the rules that need no code of
// their own: summed, largest, smallest, either, appended and the
// oracle's, and the parts of a struct field. Pointer and slice parts are
// left to the caller, who knows when they merge.
func mergeFields(a, b reflect.Value, prefix string, w witnessing) {
	for i := range a.NumField() {
		name := prefix + a.Type().Field(i).Name
		fa, fb := a.Field(i), b.Field(i)
		switch rule := cellMergeRules[name]; rule {
		case summed:
			add(fa, fb)
		case largest, smallest:
			if less(fa, fb) == (rule == largest) {
				fa.Set(fb)
			}
		case either:
			fa.SetBool(fa.Bool() || fb.Bool())
		case appended:
			joined := reflect.MakeSlice(fa.Type(), 0, fa.Len()+fb.Len())
			fa.Set(reflect.AppendSlice(reflect.AppendSlice(joined, fa), fb))
		case oracleSummed, oracleLargest:
			switch {
			case w == witnessedB:
				fa.Set(fb)
			case w == witnessedA:
			case rule == oracleSummed:
				add(fa, fb)
			case less(fa, fb):
				fa.Set(fb)
			}
		case kindsSummed:
			fa.Set(reflect.ValueOf(measure.SumErrors(fa.Interface().(map[string]measure.ErrorCount), fb.Interface().(map[string]measure.ErrorCount))))
		case parts:
			if fa.Kind() == reflect.Struct {
				mergeFields(fa, fb, name+".", w)
			}
		}
	}
}

// add adds b to a: numbers, or maps of counts name by name (into a new
// map: a's may be an input's).
func add(a, b reflect.Value) {
	switch a.Kind() {
	case reflect.Int, reflect.Int64:
		a.SetInt(a.Int() + b.Int())
	case reflect.Float64:
		a.SetFloat(a.Float() + b.Float())
	case reflect.Map:
		sum := reflect.MakeMapWithSize(a.Type(), a.Len()+b.Len())
		for _, m := range []reflect.Value{a, b} {
			for it := m.MapRange(); it.Next(); {
				n := it.Value().Int()
				if had := sum.MapIndex(it.Key()); had.IsValid() {
					n += had.Int()
				}
				sum.SetMapIndex(it.Key(), reflect.ValueOf(n).Convert(a.Type().Elem()))
			}
		}
		if sum.Len() > 0 || !a.IsNil() {
			a.Set(sum)
		}
	default:
		panic("record: cannot add a " + a.Type().String())
	}
}

// less reports whether number a is less than number b.
func less(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Int, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Float64:
		return a.Float() < b.Float()
	}
	panic("record: cannot compare a " + a.Type().String())
}
