package record_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

// Shards' clients are distinct: merging concatenates their per-client
// counts.
func TestMergeConcatenatesPerClient(t *testing.T) {
	a, b := recordtest.Sample(t), recordtest.Sample(t)
	b.Cells[0].Fairness.Clients, b.Cells[0].Fairness.PerClient = 2, []int64{7, 9}
	merged, err := record.Merge([]*record.Record{a, b})
	if err != nil {
		t.Fatal(err)
	}
	f := merged.Cells[0].Fairness
	if want := []int64{1000, 7, 9}; !slices.Equal(f.PerClient, want) || f.Clients != 3 {
		t.Errorf("merged fairness %+v, want per-client %v", f, want)
	}
	if !slices.Equal(a.Cells[0].Fairness.PerClient, []int64{1000}) {
		t.Errorf("merge changed its input: %v", a.Cells[0].Fairness.PerClient)
	}
}

// Shards' cells have each its shard's clients: they are matched by their
// place in the plan, and the merged cell has the sum of the clients. A
// missing shard is listed; the merged record is no shard.
func TestMergeShards(t *testing.T) {
	shard := func(index int, clients ...int) *record.Record {
		rec := recordtest.Sample(t)
		c := rec.Cells[0]
		rec.Cells = nil
		for _, n := range clients {
			c.Clients = n
			rec.Cells = append(rec.Cells, c)
		}
		rec.Shard = &record.ShardInfo{Index: index, Count: 3}
		return rec
	}
	// --clients 5,10 in 3 shards: 2+2+1 and 4+3+3.
	merged, err := record.Merge([]*record.Record{shard(1, 2, 4), shard(3, 1, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Cells) != 2 || merged.Cells[0].Clients != 3 || merged.Cells[1].Clients != 7 {
		t.Fatalf("merged cells %+v, want 2 cells of 3 and 7 clients", merged.Cells)
	}
	if merged.Cells[0].Acquisitions != 2000 || merged.Shard != nil || !slices.Equal(merged.MissingShards, []int{2}) || merged.ShardCount != 3 {
		t.Errorf("merged: %d acquisitions, shard %v, missing %v of %d", merged.Cells[0].Acquisitions, merged.Shard, merged.MissingShards, merged.ShardCount)
	}
	notes := strings.Join(render.Notes(merged), "\n")
	if !strings.Contains(notes, "MISSING SHARDS 2/3: figures cover 2 of 3 shards") {
		t.Errorf("notes do not report the missing shard:\n%s", notes)
	}

	other := shard(2, 2, 3)
	other.RunID = "other-run"
	twice := shard(1, 2, 4)
	for _, tc := range []struct {
		name string
		recs []*record.Record
	}{
		{"another run", []*record.Record{shard(1, 2, 4), other}},
		{"a shard twice", []*record.Record{shard(1, 2, 4), twice}},
		{"a shard and a whole run", []*record.Record{recordtest.Sample(t), shard(1, 2, 4)}},
	} {
		if _, err := record.Merge(tc.recs); !errors.Is(err, record.ErrIncompatible) {
			t.Errorf("%s: %v, want ErrIncompatible", tc.name, err)
		}
	}
}
