package runner

import (
	"fmt"
	"testing"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/workloads"
)

// TestPlannedCells: repetitions outermost, then variants, then client
// counts, numbered from 0 of all; a shard gets its share of the clients,
// and with a key per client every shard counts the run's keys.
func TestPlannedCells(t *testing.T) {
	p := plan.Plan{Variants: []string{"a", "b"}, Clients: []int{1, 5}, Repeat: 2, Workload: workloads.Spec{Keys: 3}}
	var got []string
	for _, c := range plannedCells(p, nil) {
		got = append(got, fmt.Sprintf("%d/%d rep%d %s %d clients %d keys", c.index, c.total, c.repetition, c.variant, c.spec.Clients, c.spec.Keys))
	}
	want := []string{
		"0/8 rep1 a 1 clients 3 keys", "1/8 rep1 a 5 clients 3 keys", "2/8 rep1 b 1 clients 3 keys", "3/8 rep1 b 5 clients 3 keys",
		"4/8 rep2 a 1 clients 3 keys", "5/8 rep2 a 5 clients 3 keys", "6/8 rep2 b 1 clients 3 keys", "7/8 rep2 b 5 clients 3 keys",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cells\n got %q\nwant %q", got, want)
	}

	// With servers, a repetition runs every cell of one server, then of
	// the next: a topology per server.
	p.Servers, p.Repeat, p.Clients = []string{"redis", "valkey"}, 1, []int{1}
	got = nil
	for _, c := range plannedCells(p, nil) {
		got = append(got, fmt.Sprintf("%d/%d %s on %s", c.index, c.total, c.variant, c.server))
	}
	if want := []string{"0/4 a on redis", "1/4 b on redis", "2/4 a on valkey", "3/4 b on valkey"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cells on servers\n got %q\nwant %q", got, want)
	}
	p.Servers = nil

	p.Repeat, p.Variants, p.Clients = 1, []string{"a"}, []int{5}
	p.Workload.KeyPerClient = true
	for _, tc := range []struct {
		shard                *workloads.Shard
		clients, firstClient int
	}{
		{nil, 5, 0},
		{&workloads.Shard{Index: 1, Count: 2}, 3, 0},
		{&workloads.Shard{Index: 2, Count: 2}, 2, 3},
	} {
		cells := plannedCells(p, tc.shard)
		if len(cells) != 1 {
			t.Fatalf("shard %v: %d cells, want 1", tc.shard, len(cells))
		}
		spec := cells[0].spec
		if spec.Clients != tc.clients || spec.FirstClient != tc.firstClient || spec.Keys != 5 {
			t.Errorf("shard %v: %d clients from %d, %d keys; want %d from %d, 5 keys (one per client of the run)",
				tc.shard, spec.Clients, spec.FirstClient, spec.Keys, tc.clients, tc.firstClient)
		}
	}
}
