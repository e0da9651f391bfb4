package record_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
)

// Only the shards of one run pass: records of other runs, records without
// a shard mark, another shard count or a shard twice are refused, each
// naming the field that differs.
func TestCheckOneRun(t *testing.T) {
	rec := func(runID string, shard *record.ShardInfo) *record.Record {
		return &record.Record{RunID: runID, Shard: shard}
	}
	shard := func(i, n int) *record.ShardInfo { return &record.ShardInfo{Index: i, Count: n} }
	if err := record.CheckOneRun([]*record.Record{rec("r", shard(1, 3)), rec("r", shard(3, 3))}); err != nil {
		t.Errorf("two shards of one run: %v", err)
	}
	for _, tc := range []struct {
		name string
		recs []*record.Record
		want string
	}{
		{"separate runs", []*record.Record{rec("a", nil), rec("b", nil)}, "run_id differs: record 2 is of run b"},
		{"shards of other runs", []*record.Record{rec("a", shard(1, 2)), rec("b", shard(2, 2))}, "run_id differs"},
		{"one run id, no shard mark", []*record.Record{rec("a", nil), rec("a", nil)}, "shard: record 1 (run a) is no shard"},
		{"a shard and a whole run", []*record.Record{rec("a", shard(1, 2)), rec("a", nil)}, "shard: record 2"},
		{"another shard count", []*record.Record{rec("a", shard(1, 2)), rec("a", shard(2, 3))}, "shard.count differs"},
		{"a shard twice", []*record.Record{rec("a", shard(1, 2)), rec("a", shard(1, 2))}, "shard.index"},
	} {
		err := record.CheckOneRun(tc.recs)
		if !errors.Is(err, record.ErrIncompatible) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrIncompatible saying %q", tc.name, err, tc.want)
		}
	}
}
