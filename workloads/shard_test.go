package workloads

import (
	"errors"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/3", Shard{1, 3}, true},
		{"3/3", Shard{3, 3}, true},
		{"1/1", Shard{1, 1}, true},
		{"3/2", Shard{}, false},
		{"0/0", Shard{}, false},
		{"0/3", Shard{}, false},
		{"x/2", Shard{}, false},
		{"2", Shard{}, false},
		{"-1/2", Shard{}, false},
		{"1/2/3", Shard{}, false},
		{"", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadShard) {
			t.Errorf("ParseShard(%q): %v is not ErrBadShard", tc.in, err)
		}
	}
}

// The shares of every shard add up to the whole and differ by at most one.
func TestShardClients(t *testing.T) {
	for _, tc := range []struct {
		clients, count int
		want           []int
	}{
		{6, 3, []int{2, 2, 2}},
		{7, 3, []int{3, 2, 2}},
		{8, 3, []int{3, 3, 2}},
		{2, 4, []int{1, 1, 0, 0}},
		{1, 1, []int{1}},
		{16, 1, []int{16}},
	} {
		sum := 0
		for i, want := range tc.want {
			shard := Shard{Index: i + 1, Count: tc.count}
			got := shard.Clients(tc.clients)
			if got != want {
				t.Errorf("shard %d/%d of %d clients: %d, want %d", i+1, tc.count, tc.clients, got, want)
			}
			// The shards' clients follow each other: no number twice.
			if first := shard.FirstClient(tc.clients); first != sum {
				t.Errorf("shard %d/%d of %d clients: first client %d, want %d", i+1, tc.count, tc.clients, first, sum)
			}
			sum += got
		}
		if sum != tc.clients {
			t.Errorf("%d shards of %d clients add up to %d", tc.count, tc.clients, sum)
		}
	}
}

func TestShardApply(t *testing.T) {
	spec := Spec{Clients: 10, Rate: 3000, Stages: []Stage{{time.Second, 600}, {time.Second, 0}}}
	got := Shard{Index: 1, Count: 3}.Apply(spec)
	if got.Clients != 4 || got.Rate != 1000 || got.Stages[0].Rate != 200 || got.Stages[1].Duration != time.Second {
		t.Errorf("shard 1/3: %+v", got)
	}
	if spec.Stages[0].Rate != 600 {
		t.Errorf("Apply changed its input's stages: %+v", spec.Stages)
	}
	closed := Shard{Index: 2, Count: 2}.Apply(Spec{Clients: 5, Ops: 101})
	if closed.Clients != 2 || closed.Ops != 50 {
		t.Errorf("shard 2/2 of 5 clients, 101 ops: %+v", closed)
	}
	if whole := (Shard{Index: 1, Count: 1}).Apply(spec); whole.Clients != 10 || whole.Rate != 3000 {
		t.Errorf("shard 1/1: %+v", whole)
	}
}
