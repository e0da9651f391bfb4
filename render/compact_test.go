package render_test

import (
	"bytes"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

// renderTable renders rec's table format with opts.
func renderTable(t *testing.T, rec *record.Record, opts render.TableOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := render.RenderWith(&buf, rec, "table", opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var gaps = regexp.MustCompile(`\s{2,}`)

// headerOf returns the column headers of a compact table: its first line.
func headerOf(out string) []string {
	first, _, _ := strings.Cut(out, "\n")
	return gaps.Split(strings.TrimSpace(first), -1)
}

// The default table of the golden record, and of a fenced one, fits in
// 100 columns, every line of it, notes included; the wide one does not.
func TestCompactTableFits(t *testing.T) {
	for name, rec := range map[string]*record.Record{"golden": goldenRecord(t), "fenced": recordtest.Fenced(t)} {
		out := renderTable(t, rec, render.TableOptions{})
		for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > render.DefaultWidth {
				t.Errorf("%s: line %d is %d columns, more than %d:\n%s", name, i+1, n, render.DefaultWidth, line)
			}
		}
		h := headerOf(out)
		if h[0] != "variant" || h[len(h)-1] != "verdict" || !slices.Contains(h, "overlaps") {
			t.Errorf("%s: header %q: want the variant first, the verdict last, the overlaps", name, h)
		}
		wide := renderTable(t, rec, render.TableOptions{Wide: true})
		if widest := slices.Max(lineWidths(wide)); widest <= render.DefaultWidth {
			t.Errorf("%s: the wide table is only %d columns: the check above proves nothing", name, widest)
		}
	}
}

func lineWidths(out string) []int {
	var ws []int
	for _, line := range strings.Split(out, "\n") {
		ws = append(ws, utf8.RuneCountInString(line))
	}
	return ws
}

// Narrower terminals drop the compact table's optional columns from the
// right of their ranking (the golden record has two client counts:
// clients ranks second), never the variant or the verdict.
func TestNarrowTableDropsOptionalColumns(t *testing.T) {
	rec := goldenRecord(t)
	full := headerOf(renderTable(t, rec, render.TableOptions{}))
	ranking := []string{"acq/s", "clients", "p99", "overlaps", "lost upd", "cmds/acq", "acq p50"}
	dropped := 0
	for width := render.DefaultWidth; width >= 20; width -= 5 {
		out := renderTable(t, rec, render.TableOptions{Width: width})
		h := headerOf(out)
		if h[0] != "variant" || h[len(h)-1] != "verdict" {
			t.Fatalf("width %d: header %q lost the variant or the verdict", width, h)
		}
		gone := slices.DeleteFunc(slices.Clone(full), func(c string) bool { return slices.Contains(h, c) })
		want := ranking[len(ranking)-len(gone):]
		if !sameSet(gone, want) {
			t.Errorf("width %d: dropped %q, want the last %d of the ranking, %q", width, gone, len(gone), want)
		}
		dropped = len(gone)
		table, _, _ := strings.Cut(out, "\n\n")
		if widest := slices.Max(lineWidths(table)); widest > width && len(h) > 2 {
			t.Errorf("width %d: the table is %d columns wide with %d optional columns left", width, widest, len(h)-2)
		}
	}
	if dropped != len(ranking) {
		t.Errorf("at 20 columns %d optional columns were dropped, want all %d", dropped, len(ranking))
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// --columns shows the columns named, in their order, whatever the width;
// an unknown name fails with the known ones.
func TestColumnsByName(t *testing.T) {
	rec := goldenRecord(t)
	names, err := render.ParseColumns("variant, P99,lost_upd,verdict,jain,cost")
	if err != nil {
		t.Fatal(err)
	}
	out := renderTable(t, rec, render.TableOptions{Columns: names, Width: 30})
	if h := headerOf(out); !slices.Equal(h, []string{"variant", "p99", "lost upd", "verdict", "jain", "cmds/acq"}) {
		t.Errorf("header %q", h)
	}
	if !strings.Contains(out, "3 holders") {
		t.Errorf("no verdict for none:\n%s", out)
	}
	_, err = render.ParseColumns("variant,throughput")
	if !errors.Is(err, render.ErrUnknownColumn) {
		t.Fatalf("unknown column: error %v, want ErrUnknownColumn", err)
	}
	for _, want := range []string{`"throughput"`, "acq/s", "acq-p50", "cpu-us/acq", "lost-upd", "verdict", "cost"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := render.RenderWith(&bytes.Buffer{}, rec, "table", render.TableOptions{Columns: []string{"bogus"}}); !errors.Is(err, render.ErrUnknownColumn) {
		t.Errorf("render with an unknown column: %v", err)
	}
	if n := len(render.ColumnList()); n != len(render.ColumnNames()) {
		t.Errorf("%d column descriptions for %d names", n, len(render.ColumnNames()))
	}
}

// Verdicts name the worst that broke, from the cell's violations.
func TestVerdict(t *testing.T) {
	ran := record.Cell{Limit: 1, Acquisitions: 100}
	for _, tc := range []struct {
		name string
		edit func(c *record.Cell)
		want string
	}{
		{"safe", func(c *record.Cell) {}, "safe"},
		{"holders", func(c *record.Cell) {
			c.Violations.MaxOccupancy, c.Violations.Overlaps, c.Violations.LostUpdates = 2, 5, 98
		}, "2 holders"},
		{"semaphore", func(c *record.Cell) { c.Limit, c.Violations.MaxOccupancy = 3, 5 }, "5 holders, limit 3"},
		{"semaphore within", func(c *record.Cell) { c.Limit, c.Violations.MaxOccupancy = 3, 3 }, "safe"},
		{"lost", func(c *record.Cell) { c.Violations.MaxOccupancy, c.Violations.LostUpdates = 1, 98 }, "lost 98"},
		{"stale writes", func(c *record.Cell) { c.Violations.StaleWrites, c.Violations.StaleReleases = 3, 1 }, "stale 3"},
		{"stale releases", func(c *record.Cell) { c.Violations.StaleReleases = 2 }, "stale rel 2"},
		{"fenced", func(c *record.Cell) { c.Violations.RejectedWrites = 6 }, "fenced 6"},
		{"no acquisitions", func(c *record.Cell) { c.Acquisitions = 0 }, "no data"},
		{"error", func(c *record.Cell) { c.Acquisitions, c.Error = 0, "no independent nodes" }, "no data"},
		{"broke in the warm-up", func(c *record.Cell) { c.Acquisitions, c.Violations.MaxOccupancy = 0, 4 }, "4 holders"},
	} {
		c := ran
		tc.edit(&c)
		if got := render.Verdict(&c); got != tc.want {
			t.Errorf("%s: verdict %q, want %q", tc.name, got, tc.want)
		}
	}
}

// conclusionsRecord is a comparison where the control and two locks
// broke, and two kept exclusion: one faster, the other cheaper for Redis.
func conclusionsRecord() *record.Record {
	cell := func(variant string, perS, p99US, cpuUS float64, edit func(v *record.Violations)) record.Cell {
		c := record.Cell{Variant: variant, Clients: 16, Limit: 1, Repetition: 1, Acquisitions: int64(perS * 2), ThroughputPerS: perS,
			AcquireLatencyUS: measure.Latency{P99: p99US}, Commands: int64(perS * 34),
			Server: &record.ServerCost{CPUMicrosPerAcquisition: cpuUS}}
		c.Violations.MaxOccupancy = 1
		if edit != nil {
			edit(&c.Violations)
		}
		return c
	}
	return &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: "conclusions", Cells: []record.Cell{
		cell("none", 12000, 3, 0, func(v *record.Violations) { v.MaxOccupancy, v.Overlaps, v.LostUpdates = 16, 25000, 20000 }),
		cell("simple", 606, 425000, 122, func(v *record.Violations) { v.MaxOccupancy, v.Overlaps = 2, 4 }),
		cell("lua-release", 600, 120000, 191, nil),
		cell("get-del", 598, 294000, 122, func(v *record.Violations) { v.LostUpdates = 98 }),
		cell("watchdog", 642, 115000, 250, nil),
		{Variant: "redlock", Clients: 16, Limit: 1, Repetition: 1, Error: "no independent nodes"},
	}}
}

func TestConclusions(t *testing.T) {
	rec := conclusionsRecord()
	want := []string{
		"kept exclusion: lua-release, watchdog (2 of 4; no data: redlock; none is the control: 16 holders)",
		"fastest of those: watchdog 642 acq/s, p99 115.00ms",
		"cheapest for Redis: lua-release 191.0 µs CPU per acquisition",
	}
	if got := render.Conclusions(rec); !slices.Equal(got, want) {
		t.Errorf("conclusions\n%q\nwant\n%q", got, want)
	}
	out := renderTable(t, rec, render.TableOptions{})
	for _, s := range append(want, "2 holders", "lost 98", "redlock, 16 clients: no data: no independent nodes") {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}

	// Without the servers' CPU, the cheapest is by the clients' commands;
	// a control that broke nothing is a warning.
	for i := range rec.Cells {
		rec.Cells[i].Server = nil
		if rec.Cells[i].Variant == "none" {
			rec.Cells[i].Violations = record.Violations{MaxOccupancy: 1}
		}
	}
	rec.Cells[2].Commands = rec.Cells[2].Acquisitions * 3
	got := render.Conclusions(rec)
	if len(got) != 3 || !strings.Contains(got[0], "WARNING: the control, none, broke nothing") ||
		got[2] != "cheapest: lua-release 3.00 client commands per acquisition (Redis reported no CPU time)" {
		t.Errorf("conclusions without server cost, control safe:\n%q", got)
	}

	// Nothing kept exclusion: one line, no fastest.
	for i := range rec.Cells {
		if rec.Cells[i].Error == "" {
			rec.Cells[i].Violations.LostUpdates = 1
		}
	}
	if got := render.Conclusions(rec); len(got) != 1 || !strings.HasPrefix(got[0], "kept exclusion: no variant (0 of 4") {
		t.Errorf("conclusions when everything broke: %q", got)
	}
}
