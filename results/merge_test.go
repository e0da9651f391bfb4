package results_test

import (
	"slices"
	"testing"

	"github.com/lockbench/lockbench/results"
)

// Shards' clients are distinct: merging concatenates their per-client
// counts.
func TestMergeConcatenatesPerClient(t *testing.T) {
	a, b := sampleRecord(t), sampleRecord(t)
	b.Cells[0].Fairness.Clients, b.Cells[0].Fairness.PerClient = 2, []int64{7, 9}
	merged, err := results.Merge([]*results.Record{a, b})
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
