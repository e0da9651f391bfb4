package compare_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/compare"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenReport compares two synthetic records: lua-release's throughput
// halved and its p99 up, set-nx-ex unchanged but with overlaps in the new
// record, and a watchdog cell in the old record only.
func goldenReport(t *testing.T) *compare.Report {
	t.Helper()
	base := figures(2000, 1000, 1012, 988, 1005, 996, 1003)
	halved := figures(3000, 500, 506, 494, 502, 498, 501)
	overlapping := figures(2000, 1003, 994, 1009, 991, 1001, 999)
	overlapping[2].overlaps = 4
	old := newRecord(t, "20261130T120000-aaaaaa", "1ms", repeated("lua-release", base...), repeated("set-nx-ex", base...), repeated("watchdog", base...))
	new := newRecord(t, "20261130T121000-bbbbbb", "2ms", repeated("lua-release", halved...), repeated("set-nx-ex", overlapping...))
	rep, err := compare.Compare(old, new, compare.Options{Rules: rules(t, "throughput:-10%", "acquire.p99:+60%", "overlaps:>0")})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRenderGolden(t *testing.T) {
	rep := goldenReport(t)
	for _, format := range []string{"table", "markdown"} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := compare.Render(&b, rep, format); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "report."+format+".golden")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./compare -update to write it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s output differs from %s (go test ./compare -update rewrites it):\n%s", format, path, b.String())
			}
		})
	}
}

func TestRenderCSVAndJSON(t *testing.T) {
	rep := goldenReport(t)
	var b bytes.Buffer
	if err := compare.Render(&b, rep, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || rows[0][5] != "metric" || rows[1][0] != "lua-release" || rows[1][5] != "throughput" {
		t.Errorf("csv starts %q", rows[:min(2, len(rows))])
	}
	b.Reset()
	if err := compare.Render(&b, rep, "json"); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Rows []struct {
			Metric      string   `json:"metric"`
			Change      *float64 `json:"change"`
			Significant bool     `json:"significant"`
		} `json:"rows"`
		Failures []struct{ Rule string } `json:"failures"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatalf("json: %v\n%s", err, b.String())
	}
	if len(out.Rows) == 0 || out.Rows[0].Metric != "throughput" || !out.Rows[0].Significant || out.Rows[0].Change == nil || *out.Rows[0].Change > -0.4 {
		t.Errorf("json rows start %+v", out.Rows[:min(1, len(out.Rows))])
	}
	if len(out.Failures) != 2 {
		t.Errorf("json failures %+v, want 2 (throughput:-10%% and overlaps:>0; p99 rose by 50 %%, under 60 %%)", out.Failures)
	}
	if err := compare.Render(&b, rep, "xml"); err == nil || !strings.Contains(err.Error(), "markdown") {
		t.Errorf("unknown format: %v", err)
	}
}
