package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// Render writes rep to w in format, one of render.Formats.
func Render(w io.Writer, rep *Report, format string) error {
	switch format {
	case "table":
		return renderText(w, rep, false)
	case "markdown":
		return renderText(w, rep, true)
	case "csv":
		return renderCSV(w, rep)
	case "json":
		return renderJSON(w, rep)
	}
	return render.CheckFormat(format)
}

// descriptions say what a metric's values are, in a block's heading.
var descriptions = map[string]string{
	"throughput":      "acquisitions/s",
	"acquire.p50":     "acquire latency, median",
	"acquire.p99":     "acquire latency",
	"acquire.p999":    "acquire latency",
	"handoff.p99":     "holder to next holder on a contended name",
	"server.cpu_us":   "Redis CPU µs per acquisition",
	"overlaps":        "entries over the limit, per repetition",
	"lost_updates":    "per repetition",
	"stale_releases":  "releases that freed another holder's lock, per repetition",
	"lease_lost":      "per repetition",
	"stale_writes":    "writes with an older fencing token, accepted, per repetition",
	"rejected_writes": "writes with an older fencing token, refused, per repetition",
}

func heading(metric string, fig record.Figure) string {
	parts := []string{}
	if d := descriptions[metric]; d != "" {
		parts = append(parts, d)
	}
	switch {
	case violations[metric]:
		parts = append(parts, "0 is right")
	case fig.HigherIsBetter:
		parts = append(parts, "higher is better")
	default:
		parts = append(parts, "lower is better")
	}
	return fmt.Sprintf("%s (%s)", metric, strings.Join(parts, ", "))
}

// formatValue shows one value of a figure: latencies with a unit, counts
// as integers, others with three significant figures or as integers from
// 100 on.
func formatValue(fig record.Figure, v float64) string {
	switch {
	case fig.Latency:
		return record.FormatMicros(v)
	case v == math.Trunc(v) || math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// pctRange is the confidence interval's half-width relative to the median,
// as benchstat shows it: ∞ without a bound, ? when it straddles zero.
func pctRange(s Side) string {
	switch {
	case math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0):
		return "∞"
	case math.Signbit(s.Lo) != math.Signbit(s.Median) || math.Signbit(s.Hi) != math.Signbit(s.Median):
		return "?"
	case s.Median == 0:
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*max(s.Hi/s.Median-1, 1-s.Lo/s.Median))
}

// formatSide shows a side: median ± interval, or for a violation the
// median and the worst repetition.
func formatSide(metric string, fig record.Figure, s Side) string {
	switch {
	case s.Absent:
		return "-"
	case violations[metric]:
		v := formatValue(fig, s.Median)
		if s.Max() != s.Median {
			v += " (max " + formatValue(fig, s.Max()) + ")"
		}
		return v
	}
	return formatValue(fig, s.Median) + " ±" + pctRange(s)
}

func formatChange(change float64) string {
	switch {
	case math.IsInf(change, 1):
		return "+∞"
	case math.IsInf(change, -1):
		return "-∞"
	}
	return fmt.Sprintf("%+.2f%%", 100*change)
}

// changeColumn is a row's change: the percent where significant, ~ where
// not, - where not compared.
func changeColumn(r Row) string {
	switch {
	case !r.Compared:
		return "-"
	case !r.Significant:
		return "~"
	}
	return formatChange(r.Change)
}

// pn is the test's p-value and sample sizes, as benchstat writes them.
func pn(r Row) string {
	n := fmt.Sprintf("n=%d+%d", r.Old.N(), r.New.N())
	if r.Old.N() == r.New.N() {
		n = fmt.Sprintf("n=%d", r.Old.N())
	}
	if !r.Compared {
		return n
	}
	return fmt.Sprintf("p=%.3f %s", r.P, n)
}

// labels names the cells in tables: variant and clients, and whatever else
// differs between the report's cells.
func labels(ids []CellID) []string {
	varies := func(f func(CellID) string) bool {
		return slices.ContainsFunc(ids, func(id CellID) bool { return f(id) != f(ids[0]) })
	}
	keys := varies(func(id CellID) string { return strconv.Itoa(id.Keys) })
	client := varies(func(id CellID) string { return id.Client })
	limit := varies(func(id CellID) string { return strconv.Itoa(id.Limit) })
	server := varies(func(id CellID) string { return id.Server })
	out := make([]string, len(ids))
	for i, id := range ids {
		l := fmt.Sprintf("%s, %d clients", id.Variant, id.Clients)
		if keys {
			l += fmt.Sprintf(", %d key%s", id.Keys, plural(id.Keys))
		}
		if limit {
			l += fmt.Sprintf(", limit %d", id.Limit)
		}
		if client {
			l += ", " + id.Client
		}
		if server {
			l += ", " + id.Server
		}
		out[i] = l
	}
	return out
}

// Notes are the lines that travel with the tables: which runs, how to read
// them, cells not compared, and warnings.
func Notes(rep *Report) []string {
	var notes []string
	for _, r := range []struct {
		name string
		rec  *record.Record
	}{{"old", rep.Old}, {"new", rep.New}} {
		n := repetitions(r.rec)
		notes = append(notes, fmt.Sprintf("%s: %s · %d repetition%s", r.name, render.Notes(r.rec)[0], n, plural(n)))
	}
	notes = append(notes, fmt.Sprintf("old, new: the median ± its %.0f %% confidence interval over the repetitions (violations: the median, and the worst repetition); "+
		"change = new/old − 1 where the Mann-Whitney U test gives p < %v, ~ where it does not (no significant difference); - = no such figure in that record",
		100*Confidence, rep.Alpha))
	for _, only := range []struct {
		name string
		ids  []CellID
	}{{"old", rep.OnlyOld}, {"new", rep.OnlyNew}} {
		if len(only.ids) > 0 {
			var s []string
			for _, id := range only.ids {
				s = append(s, id.String())
			}
			notes = append(notes, fmt.Sprintf("only in the %s record, not compared: %s", only.name, strings.Join(s, "; ")))
		}
	}
	for _, w := range rep.Warnings {
		notes = append(notes, "warning: "+w)
	}
	return notes
}

func renderText(w io.Writer, rep *Report, markdown bool) error {
	var ids []CellID
	for _, c := range rep.Cells {
		ids = append(ids, c.ID)
	}
	names := labels(ids)
	if markdown {
		fmt.Fprintf(w, "### lockbench compare\n\nold `%s` → new `%s`\n\n", rep.Old.RunID, rep.New.RunID)
	}
	for _, metric := range rep.Metrics {
		var body [][]string
		var fig record.Figure
		for i, c := range rep.Cells {
			if r, ok := c.Row(metric); ok {
				fig = r.Figure
				body = append(body, []string{names[i], formatSide(metric, r.Figure, r.Old), formatSide(metric, r.Figure, r.New), changeColumn(r), pn(r)})
			}
		}
		if len(body) == 0 {
			continue
		}
		row := tw.CellConfig{Alignment: tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft}}}
		t := render.TextTable(w, row)
		if markdown {
			fmt.Fprintf(w, "**%s**\n\n", heading(metric, fig))
			t = tablewriter.NewTable(w, tablewriter.WithRenderer(renderer.NewMarkdown()), tablewriter.WithConfig(tablewriter.Config{
				Header: tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off}}, Row: row,
			}))
		} else {
			fmt.Fprintln(w, heading(metric, fig))
		}
		t.Header([]string{"cell", "old", "new", "change", "p, n"})
		if err := t.Bulk(body); err != nil {
			return err
		}
		if err := t.Render(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if markdown {
		return renderVerdictMarkdown(w, rep)
	}
	for _, f := range rep.Failures {
		fmt.Fprintln(w, "regression: "+f.String())
	}
	if len(rep.Rules) > 0 && len(rep.Failures) == 0 {
		fmt.Fprintf(w, "fail-on: %s: no regression\n", ruleTexts(rep.Rules))
	}
	for _, n := range Notes(rep) {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

func renderVerdictMarkdown(w io.Writer, rep *Report) error {
	if len(rep.Rules) > 0 {
		if len(rep.Failures) == 0 {
			fmt.Fprintf(w, "**No regression** (fail-on %s).\n\n", ruleTexts(rep.Rules))
		} else {
			fmt.Fprintf(w, "**%d regression%s** (fail-on %s):\n\n", len(rep.Failures), plural(len(rep.Failures)), ruleTexts(rep.Rules))
			for _, f := range rep.Failures {
				fmt.Fprintf(w, "- %s: `%s`: %s\n", f.Cell, f.Rule.Text, f.Detail)
			}
			fmt.Fprintln(w)
		}
	}
	_, err := fmt.Fprintf(w, "> %s\n", strings.Join(Notes(rep), "\n>\n> "))
	return err
}

func ruleTexts(rules []Rule) string {
	var s []string
	for _, r := range rules {
		s = append(s, "`"+r.Text+"`")
	}
	return strings.Join(s, ", ")
}

// flatRow is a row of the CSV and JSON output; nil numbers are absent
// sides or unbounded intervals.
type flatRow struct {
	Variant     string   `json:"variant"`
	Client      string   `json:"client"`
	Clients     int      `json:"clients"`
	Keys        int      `json:"keys"`
	Limit       int      `json:"limit"`
	Metric      string   `json:"metric"`
	OldMedian   *float64 `json:"old_median"`
	OldLow      *float64 `json:"old_ci_low"`
	OldHigh     *float64 `json:"old_ci_high"`
	OldN        int      `json:"old_n"`
	NewMedian   *float64 `json:"new_median"`
	NewLow      *float64 `json:"new_ci_low"`
	NewHigh     *float64 `json:"new_ci_high"`
	NewN        int      `json:"new_n"`
	Change      *float64 `json:"change"`
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
}

func finite(v float64, ok bool) *float64 {
	if !ok || math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

func flatRows(rep *Report) []flatRow {
	var out []flatRow
	for _, c := range rep.Cells {
		for _, r := range c.Rows {
			out = append(out, flatRow{
				Variant: c.ID.Variant, Client: c.ID.Client, Clients: c.ID.Clients, Keys: c.ID.Keys, Limit: c.ID.Limit,
				Metric:    r.Metric,
				OldMedian: finite(r.Old.Median, !r.Old.Absent), OldLow: finite(r.Old.Lo, !r.Old.Absent), OldHigh: finite(r.Old.Hi, !r.Old.Absent), OldN: r.Old.N(),
				NewMedian: finite(r.New.Median, !r.New.Absent), NewLow: finite(r.New.Lo, !r.New.Absent), NewHigh: finite(r.New.Hi, !r.New.Absent), NewN: r.New.N(),
				Change: finite(r.Change, r.Compared), P: finite(r.P, r.Compared), Significant: r.Significant,
			})
		}
	}
	return out
}

func renderCSV(w io.Writer, rep *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"variant", "client", "clients", "keys", "limit", "metric",
		"old_median", "old_ci_low", "old_ci_high", "old_n", "new_median", "new_ci_low", "new_ci_high", "new_n",
		"change", "p", "significant"}); err != nil {
		return err
	}
	f := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	for _, r := range flatRows(rep) {
		if err := cw.Write([]string{r.Variant, r.Client, strconv.Itoa(r.Clients), strconv.Itoa(r.Keys), strconv.Itoa(r.Limit), r.Metric,
			f(r.OldMedian), f(r.OldLow), f(r.OldHigh), strconv.Itoa(r.OldN), f(r.NewMedian), f(r.NewLow), f(r.NewHigh), strconv.Itoa(r.NewN),
			f(r.Change), f(r.P), strconv.FormatBool(r.Significant)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func renderJSON(w io.Writer, rep *Report) error {
	type failure struct {
		Rule   string `json:"rule"`
		Cell   string `json:"cell"`
		Detail string `json:"detail"`
	}
	out := struct {
		Old      string    `json:"old_run_id"`
		New      string    `json:"new_run_id"`
		Alpha    float64   `json:"alpha"`
		Rows     []flatRow `json:"rows"`
		OnlyOld  []CellID  `json:"only_old,omitempty"`
		OnlyNew  []CellID  `json:"only_new,omitempty"`
		Failures []failure `json:"failures"`
		Warnings []string  `json:"warnings,omitempty"`
	}{Old: rep.Old.RunID, New: rep.New.RunID, Alpha: rep.Alpha, Rows: flatRows(rep), OnlyOld: rep.OnlyOld, OnlyNew: rep.OnlyNew,
		Failures: []failure{}, Warnings: rep.Warnings}
	for _, f := range rep.Failures {
		out.Failures = append(out.Failures, failure{f.Rule.Text, f.Cell.String(), f.Detail})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
