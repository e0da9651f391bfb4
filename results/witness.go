package results

import (
	"fmt"
	"slices"
)

// mergeWitness merges the witness information of cells a and b of two
// shards. witnessed says the cells' oracle figures came from one witness:
// they are every shard's already and must not be added up; takeB that b
// read them later than a (more shards done), so a takes b's. Cells of which
// only one was witnessed do not merge.
func mergeWitness(a, b *Cell) (witnessed, takeB bool, err error) {
	switch {
	case a.Witness == nil && b.Witness == nil:
		return false, false, nil
	case a.Witness == nil || b.Witness == nil:
		return false, false, fmt.Errorf("%w: %s: one shard was checked by a witness (--witness), another was not", ErrIncompatible, a.Variant)
	}
	info := *a.Witness
	info.Absent = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(info.Absent), b.Witness.Absent...))))
	info.Failures += b.Witness.Failures
	if info.FirstFailure == "" {
		info.FirstFailure = b.Witness.FirstFailure
	}
	if takeB = b.Witness.Done > a.Witness.Done; takeB {
		info.Done = b.Witness.Done
		client := a.Violations
		a.Violations = b.Violations
		a.Violations.LeaseLost, a.Violations.StaleReleases, a.Violations.Crashed = client.LeaseLost, client.StaleReleases, client.Crashed
	}
	a.Witness = &info
	return true, takeB, nil
}

// Witnessed reports whether rec's cells were checked by a witness.
func Witnessed(rec *Record) bool {
	return slices.ContainsFunc(rec.Cells, func(c Cell) bool { return c.Witness != nil })
}
