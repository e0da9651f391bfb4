package render

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
)

// noteKinds is how many kinds of error a note names; the rest are
// counted.
const noteKinds = 3

// sampleLength bounds a sample message in a note.
const sampleLength = 120

// ErrorNotes are the lines that say what the errors of rec's cells were:
// the most frequent kinds with their counts and a sample message, e.g.
// "errors: 8512 OOM (OOM command not allowed when used memory >
// 'maxmemory'.)". None for a record without errors by kind.
func ErrorNotes(rec *record.Record) []string {
	byKind := recordErrors(rec)
	if len(byKind) == 0 {
		return nil
	}
	return []string{"errors: " + describeErrors(byKind)}
}

// recordErrors are the errors of every cell of rec by kind, summed, with
// the first sample of each.
func recordErrors(rec *record.Record) map[string]measure.ErrorCount {
	var byKind map[string]measure.ErrorCount
	for i := range rec.Cells {
		byKind = measure.SumErrors(byKind, rec.Cells[i].ErrorsByKind)
	}
	return byKind
}

// topKinds are the kinds of byKind, most frequent first, ties by name.
func topKinds(byKind map[string]measure.ErrorCount) []string {
	return slices.SortedFunc(maps.Keys(byKind), func(a, b string) int {
		return cmp.Or(cmp.Compare(byKind[b].Count, byKind[a].Count), cmp.Compare(a, b))
	})
}

// describeErrors names the most frequent kinds of byKind with their
// counts and samples, and counts the rest.
func describeErrors(byKind map[string]measure.ErrorCount) string {
	kinds := topKinds(byKind)
	var parts []string
	for _, kind := range kinds[:min(len(kinds), noteKinds)] {
		c := byKind[kind]
		part := fmt.Sprintf("%d %s", c.Count, kind)
		if c.Sample != "" {
			part += " (" + shorten(c.Sample) + ")"
		}
		parts = append(parts, part)
	}
	if rest := kinds[min(len(kinds), noteKinds):]; len(rest) > 0 {
		var n int64
		for _, kind := range rest {
			n += byKind[kind].Count
		}
		parts = append(parts, fmt.Sprintf("%d of %d other kinds", n, len(rest)))
	}
	return strings.Join(parts, ", ")
}

// shorten cuts a sample message to sampleLength characters, on one line.
func shorten(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > sampleLength {
		return string(r[:sampleLength]) + "…"
	}
	return msg
}

// AllFailed reports whether every cell of rec failed — none acquired
// even once (warm-up included) and each met errors or could not run —
// and why, in one line: "every cell failed: 8512 errors, most OOM (OOM
// command not allowed when used memory > 'maxmemory'.)". Such a run
// measured nothing of the lock: its exit status says so. A record
// without cells, or interrupted, did not fail this way.
func AllFailed(rec *record.Record) (bool, string) {
	if len(rec.Cells) == 0 || rec.Interrupted {
		return false, ""
	}
	var errs int64
	var couldNotRun []string
	for _, c := range rec.Cells {
		switch {
		case c.Acquisitions+c.Warmup.Acquisitions > 0:
			return false, ""
		case c.Error != "":
			couldNotRun = append(couldNotRun, c.Error)
		case c.Errors+c.Warmup.Errors == 0:
			return false, "" // nothing acquired, but nothing failed: timeouts, a held lock
		}
		errs += c.Errors + c.Warmup.Errors
	}
	var parts []string
	if errs > 0 {
		part := fmt.Sprintf("%d errors", errs)
		if byKind := recordErrors(rec); len(byKind) > 0 {
			top := topKinds(byKind)[0]
			part += ", most " + top
			if s := byKind[top].Sample; s != "" {
				part += " (" + shorten(s) + ")"
			}
		}
		parts = append(parts, part)
	}
	if n := len(couldNotRun); n > 0 {
		parts = append(parts, fmt.Sprintf("%d cells could not run (first: %s)", n, shorten(couldNotRun[0])))
	}
	return true, "every cell failed: " + strings.Join(parts, "; ")
}
