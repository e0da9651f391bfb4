package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/results"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// Two records of the same load merge into sums of their counts and
// violations, with percentiles from their merged histograms; records of
// other configurations, or broken ones, are refused.
func TestMerge(t *testing.T) {
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
	a, b := run("a.json"), run("b.json")
	merged := filepath.Join(dir, "m.json")
	if _, stderr, status := runCLI(t, "merge", a, b, "-o", merged); status != exitOK {
		t.Fatalf("merge: %d %s", status, stderr)
	}
	ra, _ := results.Load(a)
	rb, _ := results.Load(b)
	rm, err := results.Load(merged)
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
		if want := results.Latency(metrics.Quantiles(ha)); c.AcquireLatencyUS != want {
			t.Errorf("%s: merged percentiles %+v, want those of the merged histograms %+v", c.Variant, c.AcquireLatencyUS, want)
		}
	}

	other := run("c.json", "--hold", "2ms")
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
