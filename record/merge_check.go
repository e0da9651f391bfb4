package record

import "fmt"

// CheckOneRun refuses records that are not shards of one run: Merge sums
// what they counted, which is the whole load only for the shards of one
// run (lockbench run --run-id ID --shard i/N). Two separate runs merged
// would claim twice the throughput. The error wraps ErrIncompatible and
// names the field that differs: run_id, shard (a record without one),
// shard.count or shard.index (a shard given twice).
func CheckOneRun(recs []*Record) error {
	if len(recs) == 0 {
		return fmt.Errorf("%w: no records", ErrIncompatible)
	}
	first := recs[0]
	for i, r := range recs {
		if r.RunID != first.RunID {
			return fmt.Errorf("%w: run_id differs: record %d is of run %s, record 1 of run %s; merge takes the shards of one run (--run-id ID --shard i/N)",
				ErrIncompatible, i+1, r.RunID, first.RunID)
		}
	}
	seen := map[int]bool{}
	for i, r := range recs {
		switch {
		case r.Shard == nil:
			return fmt.Errorf("%w: shard: record %d (run %s) is no shard of a run; merge takes the shards of one run (--run-id ID --shard i/N), not separate runs",
				ErrIncompatible, i+1, r.RunID)
		case r.Shard.Count != first.Shard.Count:
			return fmt.Errorf("%w: shard.count differs: record %d is shard %s, record 1 shard %s", ErrIncompatible, i+1, r.Shard, first.Shard)
		case seen[r.Shard.Index]:
			return fmt.Errorf("%w: shard.index: shard %s of run %s given twice (record %d)", ErrIncompatible, r.Shard, r.RunID, i+1)
		}
		seen[r.Shard.Index] = true
	}
	return nil
}
