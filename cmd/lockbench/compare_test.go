package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/compare"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/workloads"
)

// syntheticRecord saves a record of one lua-release cell repeated once per
// throughput, with overlaps in the repetitions listed, and returns its path.
func syntheticRecord(t *testing.T, name string, throughputs []float64, overlapsIn ...int) string {
	t.Helper()
	rec := &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: name,
		Config:   record.RunConfig{Repeat: len(throughputs)},
		Topology: record.TopologyInfo{Name: "local:single", Representative: true}}
	for i, tp := range throughputs {
		c := record.Cell{Variant: "lua-release", Client: "rueidis", Topology: "local:single", Clients: 8, Keys: 1, Limit: 1,
			Repetition: i + 1, ElapsedS: 1, Acquisitions: int64(tp), ThroughputPerS: tp}
		c.AcquireLatencyUS.P50, c.AcquireLatencyUS.P99 = 150, 2000+float64(i)
		for _, r := range overlapsIn {
			if r == i+1 {
				c.Violations.Overlaps = 2
			}
		}
		rec.Cells = append(rec.Cells, c)
	}
	path := filepath.Join(t.TempDir(), name+".json")
	if err := record.Save(rec, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareExitStatus(t *testing.T) {
	base := syntheticRecord(t, "base", []float64{1000, 1012, 988, 1005, 996})
	same := syntheticRecord(t, "same", []float64{1003, 994, 1009, 991, 1001})
	halved := syntheticRecord(t, "halved", []float64{500, 506, 494, 502, 498})
	overlapping := syntheticRecord(t, "overlapping", []float64{1003, 994, 1009, 991, 1001}, 4)
	good, _ := os.ReadFile(base)
	truncated := writeFile(t, "truncated.json", string(good[:len(good)/2]))
	notJSON := writeFile(t, "notjson.json", "lockbench was here\n")
	empty := writeFile(t, "empty.json", "")
	schema := writeFile(t, "schema.json", strings.Replace(string(good), fmt.Sprintf(`"schema": %d`, record.SchemaVersion), `"schema": 99`, 1))
	missing := filepath.Join(t.TempDir(), "missing.json")
	other := strings.ReplaceAll(string(good), `"clients": 8`, `"clients": 16`)
	otherClients := writeFile(t, "clients16.json", other)

	for _, tc := range []struct {
		name   string
		args   []string
		status int
		stderr []string // all must appear on stderr
	}{
		{"no records", nil, exitUsage, []string{"give two records", "got 0"}},
		{"one record", []string{base}, exitUsage, []string{"give two records", "got 1"}},
		{"three records", []string{base, same, halved}, exitUsage, []string{"give two records", "got 3"}},
		{"truncated", []string{truncated, base}, exitUsage, []string{"truncated.json", "not a lockbench record"}},
		{"not JSON", []string{base, notJSON}, exitUsage, []string{"notjson.json", "not a lockbench record"}},
		{"empty", []string{base, empty}, exitUsage, []string{"empty.json", "not a lockbench record"}},
		{"unknown schema", []string{schema, base}, exitUsage, []string{"schema.json", "schema 99", "reads schema 2"}},
		{"missing", []string{base, missing}, exitUsage, []string{"missing.json"}},
		{"no cell in both", []string{base, otherClients}, exitUsage, []string{"no cell of", "clients16.json"}},
		{"unknown metric", []string{base, same, "--fail-on", "thruput:-5%"}, exitUsage, []string{"--fail-on", `"thruput"`, "known:", "throughput"}},
		{"wrong sign", []string{base, same, "--fail-on", "throughput:+5%"}, exitUsage, []string{"--fail-on", "throughput:-5%"}},
		{"no condition", []string{base, same, "--fail-on", "overlaps"}, exitUsage, []string{"--fail-on", "overlaps:>0"}},
		{"bad percent", []string{base, same, "--fail-on", "acquire.p99:+ten%"}, exitUsage, []string{"--fail-on", "not a percent"}},
		{"alpha 0", []string{base, same, "--alpha", "0"}, exitUsage, []string{"--alpha", "(0, 1)"}},
		{"alpha 1", []string{base, same, "--alpha", "1"}, exitUsage, []string{"--alpha", "(0, 1)"}},
		{"alpha negative", []string{base, same, "--alpha=-0.05"}, exitUsage, []string{"--alpha", "(0, 1)"}},
		{"alpha not a number", []string{base, same, "--alpha", "five"}, exitUsage, []string{"alpha", "five"}},
		{"bad format", []string{base, same, "--format", "xml"}, exitUsage, []string{"--format", "markdown"}},
		{"same distribution", []string{base, same, "--fail-on", "throughput:-5%", "--fail-on", "overlaps:>0"}, exitOK, nil},
		{"halved, within the rule", []string{base, halved, "--fail-on", "throughput:-60%"}, exitOK, nil},
		{"halved", []string{base, halved, "--fail-on", "throughput:-10%"}, exitThresholds,
			[]string{"lockbench: regression: lua-release, 8 clients", "throughput:-10%: -50.", "p=0.008"}},
		{"overlaps", []string{base, overlapping, "--fail-on", "overlaps:>0"}, exitThresholds,
			[]string{"lockbench: regression:", "overlaps:>0: 1 of 5 repetitions"}},
		{"markdown", []string{base, halved, "--format", "markdown"}, exitOK, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, status := runCLI(t, append([]string{"compare"}, tc.args...)...)
			if status != tc.status {
				t.Fatalf("status %d, want %d; stderr:\n%s", status, tc.status, stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if status == exitUsage && strings.Count(stderr, "\n") != 1 {
				t.Errorf("a usage error takes one line, got:\n%s", stderr)
			}
			if status != exitUsage && !strings.Contains(stdout, "throughput") {
				t.Errorf("no report on stdout:\n%s", stdout)
			}
		})
	}
}

// realRecord runs lua-release with 8 clients on one lock name, holding it
// for hold, 5 repetitions of 1 s after 200 ms of warm-up, against addr, and
// saves the record.
func realRecord(t *testing.T, addr, hold, path string) *record.Record {
	t.Helper()
	d, err := workloads.ParseDistribution(hold)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := runner.Run(context.Background(), plan.Plan{
		Variants: []string{"lua-release"}, Clients: []int{8}, Repeat: 5,
		Topology: topologies.Spec{Targets: []string{"redis://" + addr}},
		Workload: workloads.Spec{Keys: 1, Hold: d, Duration: time.Second, Warmup: 200 * time.Millisecond},
	}, runner.Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, c := range rec.Cells {
		if c.Error != "" {
			t.Fatalf("repetition %d: %s", c.Repetition, c.Error)
		}
	}
	if err := record.Save(rec, path); err != nil {
		t.Fatal(err)
	}
	return rec
}

// On real runs: two records of the same configuration must not be flagged,
// and doubling the hold time must be. The rule for the first is
// throughput:-20%, not -10%: on this shared 2-core machine, over 15 pairs
// of records of one configuration run one after the other (quiet, under
// -race, and with other tests running beside), the median throughput moved
// by -5.7 to +9.1 %, and twice that move (+8.8 %, +9.1 %) was significant
// at 0.05: the machine drifts between records by about as much as a 10 %
// rule allows. Doubling the hold time cut throughput by 32 to 53 %, always
// with p=0.008, the smallest p of 5+5 repetitions.
func TestCompareRealRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("three real runs of about 7 s each")
	}
	addr := topotest.Endpoint(t).Addr
	throughputRow := func(old, new *record.Record) compare.Row {
		rep, err := compare.Compare(old, new, compare.Options{Metrics: []string{"throughput"}})
		if err != nil {
			t.Fatal(err)
		}
		row, _ := rep.Cells[0].Row("throughput")
		return row
	}
	// A burst of the machine's other load during one record spreads its
	// repetitions (under .ci/run with a findings run beside: 294/s against
	// 485/s, p=0.69) or drags a whole record down (537/s, then 409/s for
	// the same configuration, -23.8 %, p=0.032): the three records are made
	// again, up to twice, when the doubled hold's drop did not come out
	// significant or the same configuration's throughput fell by 20 % or
	// more. A compare that flags every pair still fails every try.
	var base, same, doubled string
	var sameRow, doubledRow compare.Row
	for try := 1; try <= 3; try++ {
		dir := t.TempDir()
		base, same, doubled = filepath.Join(dir, "base.json"), filepath.Join(dir, "same.json"), filepath.Join(dir, "doubled.json")
		baseRec := realRecord(t, addr, "1ms", base)
		sameRec := realRecord(t, addr, "1ms", same)
		doubledRec := realRecord(t, addr, "2ms", doubled)
		sameRow, doubledRow = throughputRow(baseRec, sameRec), throughputRow(baseRec, doubledRec)
		t.Logf("try %d: throughput median %.0f/s; same configuration %.0f/s (%+.1f %%, p=%.3f), hold doubled %.0f/s (%+.1f %%, p=%.3f)", try,
			sameRow.Old.Median, sameRow.New.Median, 100*sameRow.Change, sameRow.P, doubledRow.New.Median, 100*doubledRow.Change, doubledRow.P)
		if doubledRow.Significant && doubledRow.Change < 0 && sameRow.Change > -0.2 {
			break
		}
	}

	t.Run("same configuration", func(t *testing.T) {
		stdout, stderr, status := runCLI(t, "compare", base, same, "--fail-on", "throughput:-20%", "--fail-on", "overlaps:>0")
		if status != exitOK {
			t.Errorf("status %d, want 0 for two records of one configuration; stderr:\n%s\nstdout:\n%s", status, stderr, stdout)
		}
	})
	t.Run("hold doubled", func(t *testing.T) {
		if !doubledRow.Significant || doubledRow.Change >= 0 {
			t.Errorf("throughput row: change %+.1f %%, p=%.3f; want a significant drop", 100*doubledRow.Change, doubledRow.P)
		}
		for _, rule := range []string{"throughput:-10%", "throughput:-20%"} {
			stdout, stderr, status := runCLI(t, "compare", base, doubled, "--fail-on", rule, "--fail-on", "overlaps:>0")
			if status != exitThresholds || !strings.Contains(stderr, "regression: lua-release, 8 clients, 1 key, rueidis: "+rule) {
				t.Errorf("--fail-on %s: status %d, want 1 with the rule failed; stderr:\n%s\nstdout:\n%s", rule, status, stderr, stdout)
			}
		}
	})
}
