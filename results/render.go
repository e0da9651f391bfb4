package results

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

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/variants"
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

// column is one column of the summary table: its header, how to show a
// cell's value in it, and, for optional columns, whether a record needs it.
type column struct {
	header string
	value  func(c *Cell) string
	shown  func(rec *Record) bool // nil: always
}

// spreads are the figures whose spread over repetitions a table shows
// beside their median, by column.
var spreads = map[string]func(c *Cell) float64{
	"acq/s": func(c *Cell) float64 { return c.ThroughputPerS },
	"p99":   func(c *Cell) float64 { return c.AcquireLatencyUS.P99 },
}

// anyCell reports whether some cell of rec satisfies f.
func anyCell(f func(c *Cell) bool) func(rec *Record) bool {
	return func(rec *Record) bool {
		for i := range rec.Cells {
			if f(&rec.Cells[i]) {
				return true
			}
		}
		return false
	}
}

var (
	openLoop   = anyCell(func(c *Cell) bool { return c.OfferedPerS > 0 })
	serverCost = anyCell(func(c *Cell) bool { return c.Server != nil })
	// fencing: a cell of a variant with fencing tokens, or a fence count
	// (from a record of a variant not registered here).
	fencing = anyCell(func(c *Cell) bool {
		info, err := variants.Lookup(c.Variant)
		return (err == nil && info.Claims.Fencing) || c.Violations.StaleWrites > 0 || c.Violations.RejectedWrites > 0
	})
)

// serverFigure shows one figure of a cell's server cost, "-" without one.
func serverFigure(c *Cell, f func(*ServerCost) float64, decimals int) string {
	if c.Server == nil || f(c.Server) == 0 {
		return "-"
	}
	return strconv.FormatFloat(f(c.Server), 'f', decimals, 64)
}

var columns = []column{
	{"variant", func(c *Cell) string { return c.Variant }, nil},
	{"clients", func(c *Cell) string { return strconv.Itoa(c.Clients) }, nil},
	{"offered/s", func(c *Cell) string { return formatRate(c.OfferedPerS) }, openLoop},
	{"acq/s", func(c *Cell) string { return formatRate(c.ThroughputPerS) }, nil},
	{"acq p50", func(c *Cell) string { return FormatMicros(c.AcquireLatencyUS.P50) }, nil},
	{"p99", func(c *Cell) string { return FormatMicros(c.AcquireLatencyUS.P99) }, nil},
	{"p99.9", func(c *Cell) string { return FormatMicros(c.AcquireLatencyUS.P999) }, nil},
	{"max", func(c *Cell) string { return FormatMicros(c.AcquireLatencyUS.Max) }, nil},
	{"raw p99", func(c *Cell) string { return FormatMicros(c.AcquireLatencyRawUS.P99) }, openLoop},
	{"late p99", func(c *Cell) string { return FormatMicros(c.LatenessUS.P99) }, openLoop},
	{"dropped", func(c *Cell) string { return strconv.FormatInt(c.Dropped, 10) }, openLoop},
	{"handoff p50", func(c *Cell) string { return FormatMicros(c.HandoffLatencyUS.P50) },
		anyCell(func(c *Cell) bool { return c.HandoffLatencyUS.Max > 0 })},
	{"cmds/acq", func(c *Cell) string { return ratio(c.Commands, c.Acquisitions) }, nil},
	{"srv cmds/acq", func(c *Cell) string {
		return serverFigure(c, func(s *ServerCost) float64 { return s.CommandsPerAcquisition }, 2)
	}, serverCost},
	{"cpu µs/acq", func(c *Cell) string {
		return serverFigure(c, func(s *ServerCost) float64 { return s.CPUMicrosPerAcquisition }, 1)
	}, serverCost},
	{"acq/s/core", func(c *Cell) string {
		return serverFigure(c, func(s *ServerCost) float64 { return s.AcquisitionsPerCore }, 0)
	}, serverCost},
	{"tries/acq", func(c *Cell) string { return ratio(c.Attempts, c.Acquisitions) }, nil},
	{"busy", func(c *Cell) string { return strconv.FormatInt(c.FailedAttempts, 10) }, nil},
	{"timeouts", func(c *Cell) string { return strconv.FormatInt(c.Timeouts, 10) }, nil},
	{"errors", func(c *Cell) string { return strconv.FormatInt(c.Errors, 10) }, nil},
	{"jain", func(c *Cell) string { return strconv.FormatFloat(c.Fairness.Jain, 'f', 3, 64) }, nil},
	{"max occ", func(c *Cell) string { return fmt.Sprintf("%d/%d", c.Violations.MaxOccupancy, max(c.Limit, 1)) }, nil},
	{"overlaps", func(c *Cell) string { return strconv.FormatInt(c.Violations.Overlaps, 10) }, nil},
	{"lost upd", func(c *Cell) string {
		if c.Limit > 1 {
			return "-" // a check of mutual exclusion only
		}
		return strconv.FormatInt(c.Violations.LostUpdates, 10)
	}, nil},
	{"lease lost", func(c *Cell) string { return strconv.FormatInt(c.Violations.LeaseLost, 10) }, nil},
	{"stale rel", func(c *Cell) string { return strconv.FormatInt(c.Violations.StaleReleases, 10) }, nil},
	{"stale wr", func(c *Cell) string { return strconv.FormatInt(c.Violations.StaleWrites, 10) }, fencing},
	{"rejected wr", func(c *Cell) string { return strconv.FormatInt(c.Violations.RejectedWrites, 10) }, fencing},
	{"max unavail", func(c *Cell) string { return FormatMicros(c.Violations.LongestUnavailableMS * 1000) }, nil},
	{"counters", func(c *Cell) string { return formatCounters(c.Counters) }, anyCell(func(c *Cell) bool { return len(c.Counters) > 0 })},
}

// Render writes rec to w in format.
func Render(w io.Writer, rec *Record, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rec)
	case "csv":
		return renderCSV(w, rec)
	case "table", "markdown":
		return renderTable(w, rec, format == "markdown")
	}
	return CheckFormat(format)
}

// Table returns the summary table of rec, as the table and markdown
// formats show it: the header and one row per cell (repetitions
// summarized), without the notes (see Notes).
func Table(rec *Record) (header []string, body [][]string) { return rows(rec) }

func rows(rec *Record) (header []string, body [][]string) {
	var shown []column
	for _, col := range columns {
		if col.shown == nil || col.shown(rec) {
			shown = append(shown, col)
			header = append(header, col.header)
		}
	}
	for _, g := range Groups(rec) {
		c := g.Summary()
		row := make([]string, len(shown))
		for j, col := range shown {
			row[j] = col.value(&c)
			if f := spreads[col.header]; f != nil && len(g.Cells) > 1 {
				row[j] += fmt.Sprintf(" ±%.0f%%", 100*Spread(g.Values(Figure{Value: f})))
			}
		}
		if c.Error != "" {
			row = append(row[:2], failedRow(len(shown)-2, c.Error)...)
		}
		body = append(body, row)
	}
	return header, body
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

func renderTable(w io.Writer, rec *Record, markdown bool) error {
	header, body := rows(rec)
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
func Notes(rec *Record) []string {
	w := rec.Config.Workload
	line := fmt.Sprintf("run %s · %s %s · client %s · hold %s · think %s · keys %d · ttl %v",
		rec.RunID, rec.Topology.Name, rec.Topology.ServerVersion, rec.Config.Client, w.Hold, w.Think, w.Keys, rec.Config.TTL)
	if rec.Config.Limit > 1 {
		line += fmt.Sprintf(" · limit %d", rec.Config.Limit)
	}
	if rec.Config.Fence == plan.FenceReject {
		line += " · fence reject"
	}
	if !w.Clocks.IsZero() {
		line += " · clock skew " + w.Clocks.Skew.String()
		for _, j := range w.Clocks.Jumps {
			line += ", jump " + j.String()
		}
	}
	for _, f := range rec.Config.Faults {
		line += " · fault " + f.String()
	}
	notes := []string{line, "acquire latency of successful acquisitions; busy = tries that found the lock or every permit held; max occ = most holders at once / limit"}
	described := map[string]bool{}
	for _, c := range rec.Cells {
		if c.Settings != "" && !described[c.Variant] {
			described[c.Variant] = true
			notes = append(notes, c.Variant+": "+c.Settings)
		}
	}
	for _, c := range rec.Cells {
		if c.ServerNote != "" {
			notes = append(notes, fmt.Sprintf("server figures of %s, %d clients: %s", c.Variant, c.Clients, c.ServerNote))
		}
	}
	if !rec.Topology.Representative {
		notes = append(notes, "WARNING: embedded miniredis, not a real Redis server: latency and throughput are not representative.")
	}
	if Repeated(rec) {
		notes = append(notes, fmt.Sprintf("%d repetitions per cell: figures are medians, ± the spread (max-min)/median; timeouts, errors, dropped and violations are totals over the repetitions, max occ and max unavail the worst", rec.Config.Repeat))
	}
	if rec.Interrupted {
		notes = append(notes, "INTERRUPTED: the run was stopped early; figures cover only what ran.")
	}
	if rec.Failure != "" {
		notes = append(notes, "RUN FAILED: "+rec.Failure+"; the cells from then on count errors.")
	}
	return append(notes, shardNotes(rec)...)
}

// shardNotes say what part of a sharded run a record covers.
func shardNotes(rec *Record) []string {
	inProcess := "overlaps are those each shard saw among its own clients: mutual exclusion across processes is not checked (give the shards a --witness)"
	if Witnessed(rec) {
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
func witnessNotes(rec *Record) []string {
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

func renderCSV(w io.Writer, rec *Record) error {
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
	for _, c := range rec.Cells {
		a := c.AcquireLatencyUS
		if err := cw.Write([]string{c.Variant, c.Client, c.Topology, strconv.Itoa(c.Clients), strconv.Itoa(c.Keys), strconv.Itoa(c.Limit),
			strconv.Itoa(c.Repetition), f(c.ElapsedS), n(c.Acquisitions), f(c.ThroughputPerS),
			f(a.P50), f(a.P90), f(a.P99), f(a.P999), f(a.Max),
			f(c.ReleaseLatencyUS.P50), f(c.ReleaseLatencyUS.P99), n(c.Attempts), n(c.FailedAttempts), n(c.Timeouts),
			n(c.Errors), n(c.Commands), f(c.CommandsPerAcquisition), f(c.Fairness.Jain),
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

// FormatMicros shows a latency in microseconds with a unit that keeps three
// significant figures.
func FormatMicros(us float64) string {
	switch {
	case us <= 0:
		return "-"
	case us < 1000:
		return strconv.FormatFloat(us, 'f', 0, 64) + "µs"
	case us < 1e6:
		return strconv.FormatFloat(us/1e3, 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(us/1e6, 'f', 2, 64) + "s"
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
