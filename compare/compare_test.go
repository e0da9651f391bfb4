package compare_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/compare"
	"github.com/lockbench/lockbench/record"
)

func rules(t *testing.T, texts ...string) []compare.Rule {
	t.Helper()
	var rs []compare.Rule
	for _, s := range texts {
		r, err := compare.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

// failedRules lists the texts of the rules that failed, once each.
func failedRules(rep *compare.Report) []string {
	var texts []string
	for _, f := range rep.Failures {
		if !slices.Contains(texts, f.Rule.Text) {
			texts = append(texts, f.Rule.Text)
		}
	}
	return texts
}

// significant lists the metrics with a significant row, of any cell.
func significant(rep *compare.Report) []string {
	var ms []string
	for _, c := range rep.Cells {
		for _, r := range c.Rows {
			if r.Significant && !slices.Contains(ms, r.Metric) {
				ms = append(ms, r.Metric)
			}
		}
	}
	return ms
}

func TestCompare(t *testing.T) {
	base := figures(2000, 1000, 1012, 988, 1005, 996)
	same := figures(2000, 1003, 994, 1009, 991, 1001) // drawn from the same spread
	halved := figures(2000, 500, 506, 494, 502, 498)
	slower := figures(3000, 1000, 1012, 988, 1005, 996) // p99 +50 %
	withOverlaps := figures(2000, 1003, 994, 1009, 991, 1001)
	withOverlaps[3].overlaps = 3
	noServer := figures(2000, 1003, 994, 1009, 991, 1001)
	for i := range noServer {
		noServer[i].serverCPU = 0
	}
	rulesAll := []string{"throughput:-5%", "throughput:-60%", "acquire.p99:+10%", "acquire.p99:+60%", "overlaps:>0"}

	for _, tc := range []struct {
		name             string
		old, new         []cellFigures
		wantSignificant  []string // metrics
		wantFailed       []string // rule texts
		wantWarning      string
		wantThroughputCh float64 // when significant
	}{
		{name: "identical distributions", old: base, new: same},
		{name: "throughput halved", old: base, new: halved,
			wantSignificant: []string{"throughput"}, wantFailed: []string{"throughput:-5%"}, wantThroughputCh: -0.5},
		{name: "p99 up 50 %", old: base, new: slower,
			wantSignificant: []string{"acquire.p50", "acquire.p99", "acquire.p999"}, wantFailed: []string{"acquire.p99:+10%"}},
		{name: "overlaps in the new record", old: base, new: withOverlaps, wantFailed: []string{"overlaps:>0"}},
		{name: "one repetition each", old: base[:1], new: halved[:1],
			wantWarning: "need >= 4 samples to detect a difference"},
		{name: "server figures in one record only", old: base, new: noServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := newRecord(t, "old", "1ms", repeated("lua-release", tc.old...))
			new := newRecord(t, "new", "1ms", repeated("lua-release", tc.new...))
			rep, err := compare.Compare(old, new, compare.Options{Rules: rules(t, rulesAll...)})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Cells) != 1 || len(rep.OnlyOld)+len(rep.OnlyNew) != 0 {
				t.Fatalf("%d cells matched, %v only old, %v only new; want 1, none", len(rep.Cells), rep.OnlyOld, rep.OnlyNew)
			}
			if got := significant(rep); !slices.Equal(got, tc.wantSignificant) {
				t.Errorf("significant rows %v, want %v", got, tc.wantSignificant)
			}
			if got := failedRules(rep); !slices.Equal(got, tc.wantFailed) {
				t.Errorf("failed rules %v, want %v (failures: %v)", got, tc.wantFailed, rep.Failures)
			}
			if tc.wantThroughputCh != 0 {
				r, _ := rep.Cells[0].Row("throughput")
				if math.Abs(r.Change-tc.wantThroughputCh) > 0.01 || r.P >= 0.05 || r.Old.N() != 5 || r.New.N() != 5 {
					t.Errorf("throughput row: change %v p %v n %d+%d; want %v, p < 0.05, 5+5", r.Change, r.P, r.Old.N(), r.New.N(), tc.wantThroughputCh)
				}
			}
			if tc.wantWarning != "" {
				joined := strings.Join(rep.Warnings, "\n")
				if !strings.Contains(joined, tc.wantWarning) || !strings.Contains(joined, "--repeat 5") {
					t.Errorf("warnings %q lack %q and the advice to use --repeat 5", rep.Warnings, tc.wantWarning)
				}
			}
		})
	}
}

// Rows: a figure absent from both records has no row, one absent from one
// record is shown and not compared, violations are shown even when zero.
func TestCompareRows(t *testing.T) {
	base := figures(2000, 1000, 1012, 988, 1005, 996)
	noServer := slices.Clone(base)
	for i := range noServer {
		noServer[i].serverCPU = 0
	}
	rep, err := compare.Compare(newRecord(t, "old", "1ms", repeated("lua-release", base...)),
		newRecord(t, "new", "1ms", repeated("lua-release", noServer...)), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cell := rep.Cells[0]
	var metrics []string
	for _, r := range cell.Rows {
		metrics = append(metrics, r.Metric)
	}
	// handoff.p99 is 0 on both sides: no row.
	want := []string{"throughput", "acquire.p50", "acquire.p99", "acquire.p999", "server.cpu_us", "overlaps", "lost_updates", "stale_releases"}
	if !slices.Equal(metrics, want) {
		t.Errorf("rows %v, want %v", metrics, want)
	}
	cpu, _ := cell.Row("server.cpu_us")
	if cpu.Compared || cpu.Old.Absent || !cpu.New.Absent || cpu.Significant {
		t.Errorf("server.cpu_us with no server figures in new: compared %v, absent %v/%v", cpu.Compared, cpu.Old.Absent, cpu.New.Absent)
	}
	ov, _ := cell.Row("overlaps")
	if !ov.Compared || ov.Significant || ov.P != 1 || ov.Old.Median != 0 || ov.New.Median != 0 {
		t.Errorf("overlaps 0 on both sides: %+v; want compared, p=1, not significant", ov)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "all samples are equal") {
			t.Errorf("warning %q for rows that are zero on both sides", w)
		}
	}
}

// Cells in one record only are listed, not compared; absolute rules apply
// to those of the new record.
func TestCompareUnmatchedCells(t *testing.T) {
	base := figures(2000, 1000, 1012, 988, 1005, 996)
	broken := slices.Clone(base)
	broken[0].overlaps = 7
	old := newRecord(t, "old", "1ms", repeated("lua-release", base...), repeated("set-nx-ex", base...))
	new := newRecord(t, "new", "1ms", repeated("lua-release", base...), repeated("watchdog", broken...))
	rep, err := compare.Compare(old, new, compare.Options{Rules: rules(t, "overlaps:>0", "throughput:-5%")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 1 || rep.Cells[0].ID.Variant != "lua-release" {
		t.Fatalf("matched %v, want lua-release only", rep.Cells)
	}
	if len(rep.OnlyOld) != 1 || rep.OnlyOld[0].Variant != "set-nx-ex" || len(rep.OnlyNew) != 1 || rep.OnlyNew[0].Variant != "watchdog" {
		t.Errorf("only old %v, only new %v", rep.OnlyOld, rep.OnlyNew)
	}
	if len(rep.Failures) != 1 || rep.Failures[0].Cell.Variant != "watchdog" || !strings.Contains(rep.Failures[0].Detail, "1 of 5 repetitions") ||
		!strings.Contains(rep.Failures[0].Detail, "max 7") {
		t.Errorf("failures %v, want overlaps:>0 on watchdog, 1 of 5 repetitions, max 7", rep.Failures)
	}
}

// A baseline from one server matches a run on another (a CI service
// container), and the report says the topologies differ.
func TestCompareAcrossTopologies(t *testing.T) {
	base := figures(2000, 1000, 1012, 988, 1005, 996)
	old := newRecord(t, "old", "1ms", repeated("lua-release", base...))
	new := newRecord(t, "new", "1ms", repeated("lua-release", base...))
	new.Topology.Name = "target:127.0.0.1:6379"
	for i := range new.Cells {
		new.Cells[i].Topology = new.Topology.Name
	}
	rep, err := compare.Compare(old, new, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 1 {
		t.Fatalf("matched %d cells, want lua-release across topologies", len(rep.Cells))
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, "different topologies (local:single, target:127.0.0.1:6379)")
	}) {
		t.Errorf("warnings %q do not name the two topologies", rep.Warnings)
	}
}

func TestCompareOptions(t *testing.T) {
	rec := newRecord(t, "r", "1ms", repeated("lua-release", figures(2000, 1000, 1010)...))
	for _, alpha := range []float64{-0.1, 1, 1.5, math.NaN()} {
		if _, err := compare.Compare(rec, rec, compare.Options{Alpha: alpha}); !errors.Is(err, compare.ErrBadOptions) {
			t.Errorf("alpha %v: %v, want ErrBadOptions", alpha, err)
		}
	}
	if _, err := compare.Compare(rec, rec, compare.Options{Metrics: []string{"speed"}}); !errors.Is(err, record.ErrUnknownMetric) {
		t.Errorf("unknown metric: %v", err)
	}
	rep, err := compare.Compare(rec, rec, compare.Options{Metrics: []string{"throughput"}, Rules: rules(t, "timeouts:>0")})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Alpha != compare.DefaultAlpha || !slices.Equal(rep.Metrics, []string{"throughput", "timeouts"}) {
		t.Errorf("alpha %v metrics %v; want the default and the rule's metric added", rep.Alpha, rep.Metrics)
	}
}

// Two records of two versions of one library (drv:NAME@VERSION) are its
// two sides, and the report says which versions; a record that ran both
// versions keeps them apart.
func TestCompareLibraryVersions(t *testing.T) {
	base := figures(2000, 1000, 1012, 988, 1005, 996)
	old := newRecord(t, "old", "1ms", repeated("drv:redisson@3.45.1", base...), repeated("lua-release", base...))
	new := newRecord(t, "new", "1ms", repeated("drv:redisson@3.46.0", base...), repeated("lua-release", base...))
	rep, err := compare.Compare(old, new, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 2 || len(rep.OnlyOld)+len(rep.OnlyNew) != 0 {
		t.Fatalf("matched %v, only old %v, only new %v; want drv:redisson and lua-release matched", rep.Cells, rep.OnlyOld, rep.OnlyNew)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, "drv:redisson ran its library at 3.45.1 in the old record and at 3.46.0 in the new")
	}) {
		t.Errorf("warnings %q do not name the two versions", rep.Warnings)
	}
	both := newRecord(t, "both", "1ms", repeated("drv:redisson@3.45.1", base...), repeated("drv:redisson@3.46.0", base...))
	rep, err = compare.Compare(both, both, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 2 || rep.Cells[0].ID.Variant == rep.Cells[1].ID.Variant {
		t.Errorf("a record of both versions: matched %v, want each version to itself", rep.Cells)
	}
}
