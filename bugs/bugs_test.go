package bugs

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
)

// The Wilson interval against values computed by hand from its formula.
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{{3, 5, 0.2307, 0.8824}, {0, 5, 0, 0.4345}, {5, 5, 0.5655, 1}, {1, 2, 0.0945, 0.9055}} {
		lo, hi := wilson(tc.k, tc.n)
		if math.Abs(lo-tc.lo) > 1e-3 || math.Abs(hi-tc.hi) > 1e-3 {
			t.Errorf("wilson(%d, %d) = %.4f–%.4f, want %.4f–%.4f", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("no runs: %v–%v, want 0–1", lo, hi)
	}
}

// The verdict from both sides' runs.
func TestVerdict(t *testing.T) {
	seen, not, failed := Outcome{Seen: true}, Outcome{}, Outcome{Failed: "driver refused init"}
	side := func(runs ...Outcome) Side { return Side{Runs: runs} }
	for _, tc := range []struct {
		affected, fixed Side
		want            string
	}{
		{side(seen, seen, not, seen, seen), side(not, not, not, not, not), Reproduced},
		{side(seen, not, not, not, not), side(not, not, not, not, not), Inconclusive},
		{side(seen, seen, seen), side(not, seen, not), Inconclusive},
		{side(not, not, not), side(not, not, not), NotReproduced},
		{side(seen, seen, failed), side(not, not, not), Inconclusive},
	} {
		r := Result{Affected: tc.affected, Fixed: tc.fixed}
		if got := r.Verdict(); got != tc.want {
			t.Errorf("affected %s, fixed %s: %s, want %s", tc.affected.Count(), tc.fixed.Count(), got, tc.want)
		}
	}
	if got := side(seen, not, failed).Count().String(); got != "1 of 2 (9–91 %), 1 could not run" {
		t.Errorf("tally %q", got)
	}
}

// Every entry of the catalogue parses, names a driver the repository has
// whose manifest names a package (so that it runs at a version), and
// versions that order affected apart from fixed; a figure that shows it
// holds on a cell that has it and not on a clean one.
func TestEntries(t *testing.T) {
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no entries")
	}
	known := drivertest.Repository(t)
	for _, e := range entries {
		m, err := driver.Find(known, e.Driver)
		if err != nil || m.Package == nil {
			t.Errorf("%s: driver %s: %v (package %v)", e.ID, e.Driver, err, m.Package)
			continue
		}
		if e.FixedDriver != "" {
			if _, err := driver.Find(known, e.FixedDriver); err != nil {
				t.Errorf("%s: fixed_driver %s: %v", e.ID, e.FixedDriver, err)
			}
		} else if driver.CompareVersions(e.Affected, e.Fixed) == 0 {
			t.Errorf("%s: affected and fixed are both %s", e.ID, e.Affected)
		}
		if ok, _ := e.SeenIn(&record.Cell{}); ok {
			t.Errorf("%s: seen %v holds on a cell of nothing", e.ID, e.Seen)
		}
		for _, v := range e.Also {
			name, _ := plan.DriverName(v)
			name, _, _ = strings.Cut(name, "@")
			if _, err := driver.Find(known, name); err != nil {
				t.Errorf("%s: also %s: %v", e.ID, v, err)
			}
		}
		if !strings.HasPrefix(e.Variant(e.Fixed), "drv:"+e.Driver+"@") {
			t.Errorf("%s: variant %s", e.ID, e.Variant(e.Fixed))
		}
	}
	dirty := &record.Cell{Violations: record.Violations{Overlaps: 2}}
	if ok, why := (Entry{seen: mustThresholds(t, "overlaps>0")}).SeenIn(dirty); !ok || why != "overlaps>0 (2)" {
		t.Errorf("seen in a cell with 2 overlaps: %v %q", ok, why)
	}
}

func mustThresholds(t *testing.T, texts ...string) []record.Threshold {
	var ts []record.Threshold
	for _, s := range texts {
		th, err := record.ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	return ts
}

// An entry file missing what a report needs, or naming variants of its
// own, is refused naming the file; an unknown ID names the known ones.
func TestBadEntries(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("entries", "redis-py-4279.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Replace(string(good), "seen:", "seen_not:", 1),
		strings.Replace(string(good), `seen: ["overlaps>0"]`, `seen: ["overlapz>0"]`, 1),
		strings.Replace(string(good), "affected: 8.1.0", "affected: ''", 1),
		strings.Replace(string(good), "run:\n", "run:\n  variants: [lua-release]\n", 1),
		string(good) + "also: [lua-release]\n",
	} {
		if _, err := parse([]byte(bad), "x.yaml"); !errors.Is(err, ErrBadEntry) || !strings.Contains(err.Error(), "x.yaml") {
			t.Errorf("a bad entry: %v", err)
		}
	}
	all, _ := Entries()
	if _, err := Select(all, []string{"nosuch"}); !errors.Is(err, ErrBadEntry) || !strings.Contains(err.Error(), "redis-py-4279") {
		t.Errorf("an unknown ID: %v", err)
	}
}

// An entry's Also variants are reported beside its two versions, with
// their own tallies, and weigh on no verdict.
func TestAlsoWeighsOnNoVerdict(t *testing.T) {
	seen, clean := Outcome{Seen: true, Why: "overlaps>0 (1)"}, Outcome{}
	r := Result{Entry: Entry{ID: "x-1", Library: "x", Affected: "1.0", Fixed: "1.1", Code: "c"},
		Affected: Side{Version: "1.0", Runs: []Outcome{seen, seen}},
		Fixed:    Side{Version: "1.1", Runs: []Outcome{clean, clean}},
		Also:     []Side{{Version: "drv:y", Variant: "drv:y", Runs: []Outcome{seen, clean}}}}
	if v := r.Verdict(); v != Reproduced {
		t.Errorf("verdict %s with an Also side seen once; want reproduced", v)
	}
	var md, table strings.Builder
	if err := WriteMarkdown(&md, []Result{r}, "lockbench bugs run x-1"); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, []Result{r}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`drv:y` seen in 1 of 2", "| drv:y | 2 | not seen;"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(table.String(), "beside: drv:y 1 of 2") {
		t.Errorf("the table: %s", table.String())
	}
}
