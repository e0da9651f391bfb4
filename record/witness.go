package record

import (
	"fmt"
	"reflect"
	"slices"
)

// mergeWitness merges the witness information of cells a and b of two
// shards, and says whose oracle figures the merge keeps: each cell's own
// (unwitnessed), which add up; or, when both cells' oracle figures came
// from one witness and so are every shard's already, those of the cell
// that read them later (more shards done). Cells of which only one was
// witnessed do not merge.
func mergeWitness(a, b *Cell) (witnessing, error) {
	switch {
	case a.Witness == nil && b.Witness == nil:
		return unwitnessed, nil
	case a.Witness == nil || b.Witness == nil:
		return unwitnessed, fmt.Errorf("%w: %s: one shard was checked by a witness (--witness), another was not", ErrIncompatible, a.Variant)
	}
	w := witnessedA
	if b.Witness.Done > a.Witness.Done {
		w = witnessedB
	}
	info := *a.Witness // not the input's
	mergeFields(reflect.ValueOf(&info).Elem(), reflect.ValueOf(b.Witness).Elem(), "Witness.", w)
	info.Absent = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(a.Witness.Absent), b.Witness.Absent...))))
	if info.FirstFailure == "" {
		info.FirstFailure = b.Witness.FirstFailure
	}
	a.Witness = &info
	return w, nil
}

// Witnessed reports whether rec's cells were checked by a witness.
func Witnessed(rec *Record) bool {
	return slices.ContainsFunc(rec.Cells, func(c Cell) bool { return c.Witness != nil })
}
