package render

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
)

// Formats lists what Render writes.
var Formats = []string{"table", "json", "markdown", "csv"}

// ErrUnknownFormat is returned for a format not in Formats.
var ErrUnknownFormat = errors.New("unknown format")

// CheckFormat returns an error naming the known formats when f is unknown.
func CheckFormat(f string) error {
	for _, k := range Formats {
		if k == f {
			return nil
		}
	}
	return fmt.Errorf("%w %q (known: %s)", ErrUnknownFormat, f, strings.Join(Formats, ", "))
}

// TableOptions choose the columns of the table format; the zero value is
// the compact table of at most DefaultWidth columns. Markdown, CSV and
// JSON keep every figure whatever they say.
type TableOptions struct {
	// Columns are the columns to show, by name (see ColumnNames and
	// ParseColumns), in order; nil: the compact table's.
	Columns []string
	// Wide shows every column the record has, as markdown does, and the
	// notes unwrapped.
	Wide bool
	// Width is the terminal's width in columns; 0: DefaultWidth. The
	// compact table drops its optional columns (see keepOrder) until it
	// fits, never the variant or the verdict, and wraps its notes.
	Width int
}

// DefaultWidth is the most columns the compact table takes where the
// terminal is wider or unknown.
const DefaultWidth = 100

// Render writes rec to w in format, the table compact (TableOptions{}).
func Render(w io.Writer, rec *record.Record, format string) error {
	return RenderWith(w, rec, format, TableOptions{})
}

// RenderWith writes rec to w in format, the table as opts say.
func RenderWith(w io.Writer, rec *record.Record, format string, opts TableOptions) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rec)
	case "csv":
		return renderCSV(w, rec)
	case "markdown":
		return renderTable(w, rec, true)
	case "table":
		if opts.Wide {
			return renderTable(w, rec, false)
		}
		return renderCompact(w, rec, opts)
	}
	return CheckFormat(format)
}

// Table returns the wide summary table of rec, as markdown and the table
// format with Wide show it: the header and one row per cell (repetitions
// summarized), without the notes (see Notes).
func Table(rec *record.Record) (header []string, body [][]string) {
	cols := wideColumns(rec)
	return headers(cols), rows(rec, cols, true)
}

// CompactTable returns the compact table of rec, every one of its
// columns (none dropped for a width): the variant, clients, throughput,
// acquire p50 and p99, one cost, the violations and the verdict.
func CompactTable(rec *record.Record) (header []string, body [][]string) {
	cols, _ := compactColumns(rec)
	return headers(cols), rows(rec, cols, false)
}

func headers(cols []column) []string {
	var header []string
	for _, col := range cols {
		header = append(header, col.header)
	}
	return header
}

// rows are the rows of the table of cols, one per cell (repetitions
// summarized). A failed cell shows its error in the wide table's third
// column; elsewhere dashes (and the verdict "no data": the notes say why).
func rows(rec *record.Record, cols []column, wide bool) [][]string {
	var body [][]string
	for _, g := range record.Groups(rec) {
		c := g.Summary()
		row := make([]string, len(cols))
		for j, col := range cols {
			row[j] = col.value(&c)
			if col.spread != nil && len(g.Cells) > 1 && c.Error == "" {
				row[j] += fmt.Sprintf(" ±%.0f%%", 100*record.Spread(g.Values(record.Figure{Value: col.spread})))
			}
			if c.Error != "" && !wide && col.name() != "variant" && col.name() != "clients" && col.name() != "verdict" {
				row[j] = "-"
			}
		}
		if c.Error != "" && wide {
			row = append(row[:2], failedRow(len(cols)-2, c.Error)...)
		}
		body = append(body, row)
	}
	return body
}

// failedRow fills a failed cell's figures with a dash and its error.
func failedRow(n int, msg string) []string {
	row := make([]string, n)
	for i := range row {
		row[i] = "-"
	}
	row[0] = "error: " + msg
	return row
}

// TextTable is the plain ASCII table of lockbench's output, headers as
// given, rows as row says.
func TextTable(w io.Writer, row tw.CellConfig) *tablewriter.Table {
	return newTable(w, row, renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)}))
}

func newTable(w io.Writer, row tw.CellConfig, r tw.Renderer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithRenderer(r), tablewriter.WithConfig(tablewriter.Config{
		Header: tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off}},
		Row:    row,
	}))
}

// renderTable writes the wide table, as ASCII or markdown, and its notes.
func renderTable(w io.Writer, rec *record.Record, markdown bool) error {
	header, body := Table(rec)
	row := tw.CellConfig{Alignment: tw.CellAlignment{Global: tw.AlignRight}}
	t := TextTable(w, row)
	if markdown {
		t = newTable(w, row, renderer.NewMarkdown())
	}
	t.Header(header)
	if err := t.Bulk(body); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, note := range Notes(rec) {
		if markdown {
			note = "\n> " + note
		}
		if _, err := fmt.Fprintln(w, note); err != nil {
			return err
		}
	}
	return nil
}

// Notes are the lines that must travel with the table: what it measured
// and what makes its figures less than they seem.
func Notes(rec *record.Record) []string {
	return notes(rec, "acquire latency of successful acquisitions; busy = tries that found the lock or every permit held; max occ = most holders at once / limit")
}

// notes are Notes with legend, what the table's columns mean, second.
func notes(rec *record.Record, legend string) []string {
	w := rec.Config.Workload
	ttl := "default"
	if rec.Config.TTL > 0 {
		ttl = rec.Config.TTL.String()
	}
	line := fmt.Sprintf("run %s · %s %s · client %s · hold %s · think %s · keys %d · ttl %s",
		rec.RunID, rec.Topology.Name, rec.Topology.ServerVersion, rec.Config.Client, record.OrZero(w.Hold), record.OrZero(w.Think), w.Keys, ttl)
	if w.KeyDist != "" {
		line = strings.Replace(line, fmt.Sprintf("keys %d", w.Keys), fmt.Sprintf("keys %d (%s)", w.Keys, w.KeyDist), 1)
	}
	if rec.Config.Limit > 1 {
		line += fmt.Sprintf(" · limit %d", rec.Config.Limit)
	}
	if rec.Config.Fence == record.FenceReject {
		line += " · fence reject"
	}
	if !w.Clocks.IsZero() {
		line += " · clock skew " + record.OrZero(w.Clocks.Skew)
		for _, j := range w.Clocks.Jumps {
			line += ", jump " + j
		}
	}
	for _, f := range rec.Config.Faults {
		line += " · fault " + f.String()
	}
	notes := []string{line, legend}
	described := map[string]bool{}
	for _, c := range rec.Cells {
		if c.Settings != "" && !described[c.Variant] {
			described[c.Variant] = true
			notes = append(notes, c.Variant+": "+c.Settings)
		}
	}
	notes = append(notes, driverNotes(rec)...)
	servers := severalServers(rec)
	for _, c := range rec.Cells {
		if c.ServerNote != "" {
			on := ""
			if servers {
				on = " on " + c.Product
			}
			notes = append(notes, fmt.Sprintf("server figures of %s, %d clients%s: %s", c.Variant, c.Clients, on, c.ServerNote))
		}
	}
	if !rec.Topology.Representative {
		notes = append(notes, "WARNING: embedded miniredis, not a real Redis server: latency and throughput are not representative.")
	}
	if record.Repeated(rec) {
		notes = append(notes, fmt.Sprintf("%d repetitions per cell: figures are medians, ± the spread (max-min)/median; timeouts, errors, dropped and violations are totals over the repetitions, max occ and max unavail the worst", rec.Config.Repeat))
	}
	if rec.Interrupted {
		notes = append(notes, "INTERRUPTED: the run was stopped early; figures cover only what ran.")
	}
	if rec.Failure != "" {
		notes = append(notes, "RUN FAILED: "+rec.Failure+"; the cells from then on count errors.")
	}
	notes = append(notes, ErrorNotes(rec)...)
	notes = append(notes, followNotes(rec)...)
	notes = append(notes, silenceNotes(rec)...)
	return append(notes, shardNotes(rec)...)
}

// shardNotes say what part of a sharded run a record covers.
func shardNotes(rec *record.Record) []string {
	inProcess := "overlaps are those each shard saw among its own clients: mutual exclusion across processes is not checked (give the shards a --witness)"
	if record.Witnessed(rec) {
		inProcess = "overlaps and the oracle's other figures are every shard's together, from the witness"
	}
	notes := witnessNotes(rec)
	switch {
	case rec.Shard != nil:
		return append(notes, fmt.Sprintf("shard %s of run %s: clients are this shard's share; lockbench merge combines the shards' records; %s", rec.Shard, rec.RunID, inProcess))
	case rec.ShardCount > 0 && len(rec.MissingShards) > 0:
		var missing []string
		for _, i := range rec.MissingShards {
			missing = append(missing, fmt.Sprintf("%d/%d", i, rec.ShardCount))
		}
		return append(notes, fmt.Sprintf("MISSING SHARDS %s: figures cover %d of %d shards of run %s; %s",
			strings.Join(missing, ", "), rec.ShardCount-len(rec.MissingShards), rec.ShardCount, rec.RunID, inProcess))
	case rec.ShardCount > 0:
		return append(notes, fmt.Sprintf("merged from the %d shards of run %s; %s", rec.ShardCount, rec.RunID, inProcess))
	}
	return notes
}

// witnessNotes say where a witness's figures are incomplete: calls that
// failed, shards a cell started without.
func witnessNotes(rec *record.Record) []string {
	var notes []string
	for _, c := range rec.Cells {
		w := c.Witness
		switch {
		case w == nil:
		case w.Failures > 0:
			notes = append(notes, fmt.Sprintf("WITNESS FAILURES in %s, %d clients: %d calls to the witness failed (first: %s); those holders went unchecked, the oracle's figures are a lower bound",
				c.Variant, c.Clients, w.Failures, w.FirstFailure))
		case len(w.Absent) > 0:
			notes = append(notes, fmt.Sprintf("%s, %d clients started without shards %v, which had not reached the witness in time", c.Variant, c.Clients, w.Absent))
		}
	}
	return notes
}

func renderCSV(w io.Writer, rec *record.Record) error {
	cw := csv.NewWriter(w)
	header := []string{"variant", "client", "topology", "clients", "keys", "limit", "repetition", "elapsed_s", "acquisitions", "throughput_per_s",
		"acquire_p50_us", "acquire_p90_us", "acquire_p99_us", "acquire_p999_us", "acquire_max_us",
		"release_p50_us", "release_p99_us", "attempts", "failed_attempts", "timeouts", "errors", "commands",
		"commands_per_acquisition", "jain", "min_per_client", "max_per_client",
		"overlaps", "max_occupancy", "time_over_limit_ms", "lost_updates", "lease_lost", "abandoned",
		"stale_releases", "stale_writes", "rejected_writes", "interrupted", "error"}
	if err := cw.Write(header); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	jain := func(fair measure.Fairness) string { // empty where no client acquired
		if !fair.Defined() {
			return ""
		}
		return f(fair.Jain)
	}
	for _, c := range rec.Cells {
		a := c.AcquireLatencyUS
		if err := cw.Write([]string{c.Variant, c.Client, c.Topology, strconv.Itoa(c.Clients), strconv.Itoa(c.Keys), strconv.Itoa(c.Limit),
			strconv.Itoa(c.Repetition), f(c.ElapsedS), n(c.Acquisitions), f(c.ThroughputPerS),
			f(a.P50), f(a.P90), f(a.P99), f(a.P999), f(a.Max),
			f(c.ReleaseLatencyUS.P50), f(c.ReleaseLatencyUS.P99), n(c.Attempts), n(c.FailedAttempts), n(c.Timeouts),
			n(c.Errors), n(c.Commands), f(c.CommandsPerAcquisition), jain(c.Fairness),
			n(c.Fairness.MinPerClient), n(c.Fairness.MaxPerClient),
			n(c.Violations.Overlaps), n(c.Violations.MaxOccupancy), f(c.Violations.TimeOverLimitMS),
			n(c.Violations.LostUpdates), n(c.Violations.LeaseLost), n(c.Violations.Abandoned),
			n(c.Violations.StaleReleases), n(c.Violations.StaleWrites), n(c.Violations.RejectedWrites),
			strconv.FormatBool(c.Interrupted), c.Error}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// formatCounters shows a variant's counters as name=count, sorted.
func formatCounters(counters map[string]int64) string {
	if len(counters) == 0 {
		return "-"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(counters)) {
		parts = append(parts, fmt.Sprintf("%s=%d", name, counters[name]))
	}
	return strings.Join(parts, " ")
}

func formatRate(perS float64) string { return strconv.FormatFloat(perS, 'f', 0, 64) }

func ratio(num, den int64) string {
	if den == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(num)/float64(den), 'f', 2, 64)
}
