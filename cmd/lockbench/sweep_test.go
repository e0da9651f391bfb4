package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

func TestSweepCommand(t *testing.T) {
	ep := topotest.Endpoint(t)
	out := filepath.Join(t.TempDir(), "sweep.json")
	stdout, stderr, status := runCLI(t, "sweep", "--target", "redis://"+ep.Addr, "--variants", "lua-release", "--keys", "16", "--hold", "0",
		"--clients", "1,2,4", "--duration", "300ms", "--warmup", "0", "--slo", "acquire.p99<10s", "--min-gain", "0.5",
		"--target-rate", "50000", "--format", "markdown", "--out", out)
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	for _, want := range []string{"### lua-release", "| clients |", "highest throughput within the SLO (acquire.p99<10s)", "acq/s need"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	rec, err := record.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Sweep == nil || len(rec.Sweep.Variants) != 1 || len(rec.Sweep.Variants[0].Points) != len(rec.Cells) || len(rec.Cells) == 0 {
		t.Fatalf("record sweep %+v with %d cells: want one variant whose points are the cells", rec.Sweep, len(rec.Cells))
	}
}

func TestRunWritesIntervalLogs(t *testing.T) {
	t.Parallel() // counts of histograms, not timing: on a server of its own beside the other parallel tests.
	ep := topotest.Endpoint(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	_, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--variants", "lua-release", "--clients", "4",
		"--duration", "1500ms", "--warmup", "0", "--repeat", "2", "--hlog", filepath.Join(dir, "hlog"), "--out", out)
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	rec, err := record.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"lua-release-c4.hlog", "lua-release-c4-r2.hlog"} {
		f, err := os.Open(filepath.Join(dir, "hlog", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		reader := hdrhistogram.NewHistogramLogReader(f)
		var total int64
		for {
			h, err := reader.NextIntervalHistogram()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if h == nil {
				break
			}
			total += h.TotalCount()
		}
		if total != rec.Cells[i].Acquisitions || total == 0 {
			t.Errorf("%s: intervals count %d acquisitions, the record %d", name, total, rec.Cells[i].Acquisitions)
		}
	}
}
