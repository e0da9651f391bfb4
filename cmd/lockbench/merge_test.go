package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// Two records of the same load (the shards of one run) merge into sums of their counts and
// violations, with percentiles from their merged histograms; records of
// other configurations, or broken ones, are refused.
func TestMerge(t *testing.T) {
	t.Parallel() // sums and exit statuses, not timing: on a server of its own beside the other parallel tests.
	ep := topotest.Endpoint(t)
	dir := t.TempDir()
	run := func(name string, extra ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"run", "--target", "redis://" + ep.Addr, "--variants", "none,lua-release", "--clients", "4",
			"--duration", "300ms", "--warmup", "0", "--out", out}, extra...)
		if _, stderr, status := runCLI(t, args...); status != exitOK {
			t.Fatalf("run: %d %s", status, stderr)
		}
		return out
	}
	// Merge takes the shards of one run.
	runID := fmt.Sprintf("merge-test-%d", time.Now().UnixNano())
	shard := func(i int) []string { return []string{"--run-id", runID, "--shard", fmt.Sprintf("%d/2", i)} }
	a, b := run("a.json", shard(1)...), run("b.json", shard(2)...)
	merged := filepath.Join(dir, "m.json")
	if _, stderr, status := runCLI(t, "merge", a, b, "-o", merged); status != exitOK {
		t.Fatalf("merge: %d %s", status, stderr)
	}
	ra, _ := record.Load(a)
	rb, _ := record.Load(b)
	rm, err := record.Load(merged)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range rm.Cells {
		ca, cb := ra.Cells[i], rb.Cells[i]
		if c.Acquisitions != ca.Acquisitions+cb.Acquisitions || c.Violations.Overlaps != ca.Violations.Overlaps+cb.Violations.Overlaps ||
			c.Violations.LostUpdates != ca.Violations.LostUpdates+cb.Violations.LostUpdates {
			t.Errorf("%s: merged %d acquisitions, %d overlaps; want the sums", c.Variant, c.Acquisitions, c.Violations.Overlaps)
		}
		ha, _ := metrics.DecodeHistogram(ca.Histograms.Acquire)
		hb, _ := metrics.DecodeHistogram(cb.Histograms.Acquire)
		ha.Merge(hb)
		if want := measure.Latency(metrics.Quantiles(ha)); c.AcquireLatencyUS != want {
			t.Errorf("%s: merged percentiles %+v, want those of the merged histograms %+v", c.Variant, c.AcquireLatencyUS, want)
		}
	}

	other := run("c.json", append(shard(2), "--hold", "2ms")...)
	if _, stderr, status := runCLI(t, "merge", a, other, "-o", filepath.Join(dir, "x.json")); status != exitUsage || !strings.Contains(stderr, "another configuration") {
		t.Errorf("merging other configurations: %d %q", status, stderr)
	}
	data, _ := os.ReadFile(a)
	broken := filepath.Join(dir, "broken.json")
	_ = os.WriteFile(broken, data[:len(data)/3], 0o644)
	if _, stderr, status := runCLI(t, "merge", a, broken, "-o", filepath.Join(dir, "y.json")); status != exitUsage || !strings.Contains(stderr, "not a lockbench record") {
		t.Errorf("merging a truncated record: %d %q", status, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Error("a refused merge wrote a file")
	}
}

// Records of separate runs do not merge: their sum would claim a load
// nobody ran. Each refusal is exit 2, one line naming the field that
// differs, and writes nothing.
func TestMergeRefusesSeparateRuns(t *testing.T) {
	t.Parallel() // exit statuses of files: beside the other parallel tests.
	dir := t.TempDir()
	base, err := record.Load(filepath.Join("..", "..", "results", "baselines", "regress.json"))
	if err != nil {
		t.Fatal(err)
	}
	save := func(name string, edit func(r *record.Record)) string {
		r := *base
		edit(&r)
		path := filepath.Join(dir, name)
		if err := record.Save(&r, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := save("a.json", func(r *record.Record) { r.RunID = "run-a" })
	b := save("b.json", func(r *record.Record) { r.RunID = "run-b" })
	again := save("again.json", func(r *record.Record) { r.RunID = "run-a" })
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"two runs", []string{a, b}, "run_id differs"},
		{"one run id, no shards", []string{a, again}, "shard: record 1 (run run-a) is no shard"},
	} {
		out := filepath.Join(dir, "merged.json")
		stdout, stderr, status := runCLI(t, append(append([]string{"merge"}, tc.paths...), "-o", out)...)
		if status != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line saying %q", tc.name, status, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a refused merge wrote %s", tc.name, out)
		}
	}
}
