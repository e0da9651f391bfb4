package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// Three shards of one run, run at once against one Redis, merge into the
// whole: each cell's acquisitions are the sum of the shards', its clients
// add up to --clients. A missing shard leaves the merge valid and reported;
// records of other runs, or a shard twice, are refused.
//
// The shards run in-process, each its own run of the CLI as a process
// would; what they share is the Redis and the run id (and so the keys).
// Without a witness each shard's oracle sees only its own clients:
// lua-release must show no overlap in any, none must show overlaps within
// each. TestWitnessedShards checks shards across processes.
func TestShardedRun(t *testing.T) {
	ep := topotest.Endpoint(t)
	dir := t.TempDir()
	runID := fmt.Sprintf("shard-test-%d", time.Now().UnixNano())
	const shards = 3
	paths := make([]string, shards)
	var wg sync.WaitGroup
	for i := range shards {
		paths[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i+1))
		wg.Go(func() {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"run", "--target", "redis://" + ep.Addr, "--variants", "none,lua-release",
				"--clients", "6", "--duration", "1s", "--warmup", "0", "--quiet",
				"--run-id", runID, "--shard", fmt.Sprintf("%d/%d", i+1, shards), "--out", paths[i]}, &stdout, &stderr)
			if status := exitStatus(err, &stderr); status != exitOK {
				t.Errorf("shard %d/%d: exit %d: %s", i+1, shards, status, stderr.String())
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	recs := make([]*record.Record, shards)
	for i, path := range paths {
		rec, err := record.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		recs[i] = rec
		if rec.RunID != runID || rec.Shard == nil || *rec.Shard != (record.ShardInfo{Index: i + 1, Count: shards}) {
			t.Errorf("shard %d: run id %q, shard %+v", i+1, rec.RunID, rec.Shard)
		}
		if !slices.Equal(rec.Config.Clients, []int{6}) {
			t.Errorf("shard %d: the plan echoes clients %v, want the whole run's [6]", i+1, rec.Config.Clients)
		}
		for _, c := range rec.Cells {
			if c.Server != nil {
				t.Errorf("shard %d, %s: a server cost, which counts every shard's commands", i+1, c.Variant)
			}
			if c.Clients != 2 || c.Acquisitions == 0 || c.Error != "" {
				t.Errorf("shard %d, %s: %d clients, %d acquisitions, error %q; want 2 clients measured", i+1, c.Variant, c.Clients, c.Acquisitions, c.Error)
			}
			switch overlaps := c.Violations.Overlaps; {
			case c.Variant == "none" && overlaps == 0:
				t.Errorf("shard %d: none shows no overlap among its own 2 clients", i+1)
			case c.Variant == "lua-release" && overlaps != 0:
				t.Errorf("shard %d: lua-release shows %d overlaps", i+1, overlaps)
			}
		}
	}

	merged := filepath.Join(dir, "merged.json")
	stdout, stderr, status := runCLI(t, "merge", paths[0], paths[1], paths[2], "-o", merged)
	if status != exitOK || strings.Contains(stderr, "missing") {
		t.Fatalf("merge of every shard: exit %d: %s", status, stderr)
	}
	if !strings.Contains(stdout, "merged from the 3 shards of run "+runID) {
		t.Errorf("the table does not say it merges 3 shards:\n%s", stdout)
	}
	rec, err := record.Load(merged)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Shard != nil || rec.RunID != runID || rec.ShardCount != shards || len(rec.MissingShards) != 0 {
		t.Errorf("merged record: shard %+v, run %q, %d shards, missing %v", rec.Shard, rec.RunID, rec.ShardCount, rec.MissingShards)
	}
	if len(rec.Cells) != 2 {
		t.Fatalf("merged record has %d cells, want 2 (none, lua-release)", len(rec.Cells))
	}
	for j, c := range rec.Cells {
		var sum int64
		for _, r := range recs {
			sum += r.Cells[j].Acquisitions
		}
		if c.Acquisitions != sum || c.Clients != 6 || c.Fairness.Clients != 6 || len(c.Fairness.PerClient) != 6 {
			t.Errorf("merged %s: %d acquisitions, %d clients (fairness %d, %d counts); want %d, 6", c.Variant, c.Acquisitions,
				c.Clients, c.Fairness.Clients, len(c.Fairness.PerClient), sum)
		}
		if c.Variant == "lua-release" && c.Violations.Overlaps != 0 {
			t.Errorf("merged lua-release shows %d overlaps", c.Violations.Overlaps)
		}
	}

	// Shard 3 died: the two others still merge, and say so.
	partial := filepath.Join(dir, "partial.json")
	stdout, stderr, status = runCLI(t, "merge", paths[0], paths[1], "-o", partial)
	if status != exitOK || !strings.Contains(stderr, "lockbench: merge: shard 3/3 missing: figures cover 2 of 3 shards") {
		t.Errorf("merge of 2 of 3 shards: exit %d, stderr %q", status, stderr)
	}
	if !strings.Contains(stdout, "MISSING SHARDS 3/3: figures cover 2 of 3 shards") {
		t.Errorf("the table does not say a shard is missing:\n%s", stdout)
	}
	if rec, err := record.Load(partial); err != nil {
		t.Error(err)
	} else if !slices.Equal(rec.MissingShards, []int{3}) || rec.Cells[0].Clients != 4 {
		t.Errorf("partial merge: missing %v, %d clients; want [3], 4", rec.MissingShards, rec.Cells[0].Clients)
	}

	// One shard alone is what is left of a run whose others died.
	_, stderr, status = runCLI(t, "merge", paths[1], "-o", filepath.Join(dir, "alone.json"))
	if status != exitOK || !strings.Contains(stderr, "shard 1/3 missing: figures cover 1 of 3 shards") ||
		!strings.Contains(stderr, "shard 3/3 missing: figures cover 1 of 3 shards") {
		t.Errorf("merge of shard 2/3 alone: exit %d, stderr %q", status, stderr)
	}

	// Records that are not the shards of one run.
	other := *recs[2]
	other.RunID = "another-run"
	otherPath := filepath.Join(dir, "other.json")
	whole := *recs[2]
	whole.Shard = nil
	wholePath := filepath.Join(dir, "whole.json")
	fewer := *recs[2]
	fewer.Shard = &record.ShardInfo{Index: 2, Count: 2}
	fewerPath := filepath.Join(dir, "fewer.json")
	for path, rec := range map[string]*record.Record{otherPath: &other, wholePath: &whole, fewerPath: &fewer} {
		if err := record.Save(rec, path); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"another run", []string{paths[0], otherPath}, "record 2 is of run another-run"},
		{"a shard twice", []string{paths[0], paths[1], paths[0]}, "shard 1/3 of run " + runID + " given twice"},
		{"no shard", []string{paths[0], wholePath}, "is no shard"},
		{"another shard count", []string{paths[0], fewerPath}, "share the shard count"},
		{"a whole run alone", []string{wholePath}, "at least two records"},
	} {
		out := filepath.Join(dir, "refused.json")
		_, stderr, status := runCLI(t, append(append([]string{"merge"}, tc.paths...), "-o", out)...)
		if status != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line saying %q", tc.name, status, stderr, tc.want)
		}
	}
}
