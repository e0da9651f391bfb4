package compare_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/compare"
	"github.com/lockbench/lockbench/record"
)

// onServer sets the product of rec's cells, and of its head.
func onServer(rec *record.Record, product string) *record.Record {
	for i := range rec.Cells {
		rec.Cells[i].Product = product
	}
	rec.Topology.ServerVersion = product
	return rec
}

// Records of --servers redis,valkey pair their cells server by server; a
// run on Redis and one on Valkey pair by variant, and the report says the
// servers differ.
func TestCompareAcrossServers(t *testing.T) {
	base := figures(2000, 1000, 1012, 988, 1005, 996)
	both := func(name string) *record.Record {
		rec := onServer(newRecord(t, name, "1ms", repeated("lua-release", base...)), "redis 7.0.15")
		valkey := onServer(newRecord(t, name, "1ms", repeated("lua-release", base...)), "valkey 8.0.1")
		rec.Cells = append(rec.Cells, valkey.Cells...)
		rec.Topology.ServerVersion = "redis 7.0.15, valkey 8.0.1"
		return rec
	}
	rep, err := compare.Compare(both("old"), both("new"), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Cells {
		got = append(got, c.ID.String())
	}
	if want := []string{"lua-release, 8 clients, 1 key, rueidis, on redis 7.0.15", "lua-release, 8 clients, 1 key, rueidis, on valkey 8.0.1"}; !slices.Equal(got, want) {
		t.Errorf("matched %q; want %q", got, want)
	}

	old := onServer(newRecord(t, "old", "1ms", repeated("lua-release", base...)), "redis 7.0.15")
	new := onServer(newRecord(t, "new", "1ms", repeated("lua-release", base...)), "valkey 8.0.1")
	if rep, err = compare.Compare(old, new, compare.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 1 || rep.Cells[0].ID.Server != "" {
		t.Fatalf("matched %v; want lua-release across the servers", rep.Cells)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "different servers (redis 7.0.15; valkey 8.0.1)") }) {
		t.Errorf("warnings %q do not name the two servers", rep.Warnings)
	}
}
