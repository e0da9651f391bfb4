package render

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/record"
)

// ErrUnknownColumn is wrapped by the error for a column name that is not a
// column of the table.
var ErrUnknownColumn = errors.New("unknown column")

// column is one column of the summary table: its header, how to show a
// cell's value in it, and, for optional columns, whether a record needs it.
type column struct {
	header string
	value  func(c *record.Cell) string
	shown  func(rec *record.Record) bool // nil: always
	// spread is the figure whose spread over repetitions the table shows
	// beside the median; nil for none.
	spread func(c *record.Cell) float64
	// about says what the column shows, for --columns list.
	about string
}

// name is what --columns calls the column: its header in lower case,
// spaces as dashes, µ as u (acq-p50, cpu-us/acq).
func (col column) name() string { return columnName(col.header) }

// columnName normalizes a header or a name given to --columns.
func columnName(s string) string {
	return strings.NewReplacer(" ", "-", "_", "-", "µ", "u").Replace(strings.ToLower(strings.TrimSpace(s)))
}

// anyCell reports whether some cell of rec satisfies f.
func anyCell(f func(c *record.Cell) bool) func(rec *record.Record) bool {
	return func(rec *record.Record) bool {
		for i := range rec.Cells {
			if f(&rec.Cells[i]) {
				return true
			}
		}
		return false
	}
}

var (
	openLoop   = anyCell(func(c *record.Cell) bool { return c.OfferedPerS > 0 })
	serverCost = anyCell(func(c *record.Cell) bool { return c.Server != nil })
	// fencing: a cell of a variant with fencing tokens, or a fence count.
	fencing = anyCell(func(c *record.Cell) bool {
		return c.Fencing || c.Violations.StaleWrites > 0 || c.Violations.RejectedWrites > 0
	})
)

// serverFigure shows one figure of a cell's server cost, "-" without one.
func serverFigure(c *record.Cell, f func(*record.ServerCost) float64, decimals int) string {
	if c.Server == nil || f(c.Server) == 0 {
		return "-"
	}
	return strconv.FormatFloat(f(c.Server), 'f', decimals, 64)
}

func throughputOf(c *record.Cell) float64 { return c.ThroughputPerS }
func p99Of(c *record.Cell) float64        { return c.AcquireLatencyUS.P99 }

// columns are every column of the wide table, in its order.
var columns = []column{
	{"variant", func(c *record.Cell) string { return c.Variant }, nil, nil, "the lock design"},
	{"server", func(c *record.Cell) string { return c.Product }, severalServers, nil, "the server the cell ran on, and its version (--servers)"},
	{"clients", func(c *record.Cell) string { return strconv.Itoa(c.Clients) }, nil, nil, "concurrent clients of the cell"},
	{"offered/s", func(c *record.Cell) string { return formatRate(c.OfferedPerS) }, openLoop, nil, "open loop: acquisitions offered per second"},
	{"acq/s", func(c *record.Cell) string { return formatRate(c.ThroughputPerS) }, nil, throughputOf, "acquisitions per second"},
	{"acq p50", func(c *record.Cell) string { return record.FormatMicros(c.AcquireLatencyUS.P50) }, nil, nil, "median acquire latency"},
	{"p99", func(c *record.Cell) string { return record.FormatMicros(c.AcquireLatencyUS.P99) }, nil, p99Of, "99th percentile of acquire latency"},
	{"p99.9", func(c *record.Cell) string { return record.FormatMicros(c.AcquireLatencyUS.P999) }, nil, nil, "99.9th percentile of acquire latency"},
	{"max", func(c *record.Cell) string { return record.FormatMicros(c.AcquireLatencyUS.Max) }, nil, nil, "slowest acquisition"},
	{"raw p99", func(c *record.Cell) string { return record.FormatMicros(c.AcquireLatencyRawUS.P99) }, openLoop, nil, "open loop: p99 from the actual start (not corrected)"},
	{"late p99", func(c *record.Cell) string { return record.FormatMicros(c.LatenessUS.P99) }, openLoop, nil, "open loop: p99 of how late the schedule started arrivals"},
	{"dropped", func(c *record.Cell) string { return strconv.FormatInt(c.Dropped, 10) }, openLoop, nil, "open loop: arrivals dropped for want of a free client"},
	{"handoff p50", func(c *record.Cell) string { return record.FormatMicros(c.HandoffLatencyUS.P50) },
		anyCell(func(c *record.Cell) bool { return c.HandoffLatencyUS.Max > 0 }), nil, "median time from a holder leaving to the next entering"},
	{"cmds/acq", func(c *record.Cell) string { return ratio(c.Commands, c.Acquisitions) }, nil, nil, "commands the clients sent per acquisition"},
	{"srv cmds/acq", func(c *record.Cell) string {
		return serverFigure(c, func(s *record.ServerCost) float64 { return s.CommandsPerAcquisition }, 2)
	}, serverCost, nil, "commands Redis ran per acquisition (scripts' calls included)"},
	{"cpu µs/acq", func(c *record.Cell) string {
		return serverFigure(c, func(s *record.ServerCost) float64 { return s.CPUMicrosPerAcquisition }, 1)
	}, serverCost, nil, "Redis CPU time per acquisition, all data nodes"},
	{"acq/s/core", func(c *record.Cell) string {
		return serverFigure(c, func(s *record.ServerCost) float64 { return s.AcquisitionsPerCore }, 0)
	}, serverCost, nil, "acquisitions per second one busy Redis core could serve"},
	{"tries/acq", func(c *record.Cell) string { return ratio(c.Attempts, c.Acquisitions) }, nil, nil, "tries per acquisition"},
	{"busy", func(c *record.Cell) string { return strconv.FormatInt(c.FailedAttempts, 10) }, nil, nil, "tries that found the lock or every permit held"},
	{"timeouts", func(c *record.Cell) string { return strconv.FormatInt(c.Timeouts, 10) }, nil, nil, "acquires given up after --acquire-timeout"},
	{"errors", func(c *record.Cell) string { return strconv.FormatInt(c.Errors, 10) }, nil, nil, "acquires and releases that failed"},
	{"jain", func(c *record.Cell) string { return c.Fairness.JainText() }, nil, nil, "Jain's fairness index over the clients (1: even)"},
	{"max occ", func(c *record.Cell) string { return fmt.Sprintf("%d/%d", c.Violations.MaxOccupancy, max(c.Limit, 1)) }, nil, nil, "most holders at once / limit"},
	{"overlaps", func(c *record.Cell) string { return strconv.FormatInt(c.Violations.Overlaps, 10) }, nil, nil, "entries that made the holders exceed the limit"},
	{"lost upd", func(c *record.Cell) string {
		if c.Limit > 1 {
			return "-" // a check of mutual exclusion only
		}
		return strconv.FormatInt(c.Violations.LostUpdates, 10)
	}, nil, nil, "critical sections whose counter increment was lost (locks only)"},
	{"lease lost", func(c *record.Cell) string { return strconv.FormatInt(c.Violations.LeaseLost, 10) }, nil, nil, "releases and renewals that found the lease gone"},
	{"stale rel", func(c *record.Cell) string { return strconv.FormatInt(c.Violations.StaleReleases, 10) }, nil, nil, "releases that freed a later holder's lock"},
	{"stale wr", func(c *record.Cell) string { return strconv.FormatInt(c.Violations.StaleWrites, 10) }, fencing, nil, "writes with a stale fencing token the resource accepted"},
	{"rejected wr", func(c *record.Cell) string { return strconv.FormatInt(c.Violations.RejectedWrites, 10) }, fencing, nil, "writes with a stale fencing token the resource refused"},
	{"max unavail", func(c *record.Cell) string { return record.FormatMicros(c.Violations.LongestUnavailableMS * 1000) }, nil, nil, "longest time a lock sat free while clients waited"},
	{"counters", func(c *record.Cell) string { return formatCounters(c.Counters) }, anyCell(func(c *record.Cell) bool { return len(c.Counters) > 0 }), nil, "the variant's own counts"},
	// The margins of expiring locks (Cell.Margins).
	{"valid p50", marginFigure(func(m *record.Margins) string { return record.FormatMicros(m.ValidityLeftUS.P50) }), margins, nil, "validity left when the acquire returned, median"},
	{"valid p99", marginFigure(func(m *record.Margins) string { return record.FormatMicros(m.ValidityLeftUS.P99) }), margins, nil, "validity left when the acquire returned, p99"},
	{"late holds", marginFigure(func(m *record.Margins) string { return fmt.Sprintf("%d/%d", m.LateHolds, m.Holds) }), margins, nil, "holds still inside after their lease expired / holds"},
	{"past ttl p50", marginFigure(func(m *record.Margins) string { return record.FormatMicros(m.LateUS.P50) }), margins, nil, "time inside after the lease expired, median of late holds"},
	{"past ttl p99", marginFigure(func(m *record.Margins) string { return record.FormatMicros(m.LateUS.P99) }), margins, nil, "time inside after the lease expired, p99 of late holds"},
	{"notice p50", marginFigure(func(m *record.Margins) string { return record.FormatMicros(m.LossNoticeUS.P50) }), notices, nil, "how long after its lease was gone a renewing holder learned it, median"},
	{"notice p99", marginFigure(func(m *record.Margins) string { return record.FormatMicros(m.LossNoticeUS.P99) }), notices, nil, "how long after its lease was gone a renewing holder learned it, p99"},
}

// verdictColumn is the compact table's last column (see Verdict); the
// wide table, as markdown and CSV, leaves it out: its figures say it.
var verdictColumn = column{"verdict", Verdict, nil, nil, "safe, or what broke: holders over the limit, lost updates, stale writes or releases"}

// costName names the compact table's cost column: Redis CPU per
// acquisition where the servers reported it, else the clients' commands.
const costName = "cost"

// defaultColumns are the compact table's columns, in order; those a
// record does not need (fence counts without fencing) are left out.
var defaultColumns = []string{"variant", "server", "clients", "acq/s", "acq-p50", "p99", costName, "overlaps", "lost-upd", "stale-wr", "rejected-wr", "verdict"}

// keepOrder ranks the compact table's columns, most wanted first, for a
// terminal too narrow for all of them: they are dropped from the right
// of this list. The variant and the verdict are never dropped. With
// several client counts, clients moves up behind acq/s: rows would
// otherwise be told apart by nothing.
var keepOrder = []string{"acq/s", "p99", "overlaps", "lost-upd", "stale-wr", "rejected-wr", "clients", costName, "acq-p50"}

// lookupColumn returns the column called name (or headed so) for rec.
func lookupColumn(rec *record.Record, name string) (column, bool) {
	name = columnName(name)
	if name == costName {
		name = "cmds/acq"
		if serverCost(rec) {
			name = "cpu-us/acq"
		}
	}
	for _, col := range append(slices.Clip(columns), verdictColumn) {
		if col.name() == name {
			return col, true
		}
	}
	return column{}, false
}

// ColumnNames lists the names --columns accepts, in the wide table's
// order, then verdict and cost.
func ColumnNames() []string {
	var names []string
	for _, col := range columns {
		names = append(names, col.name())
	}
	return append(names, verdictColumn.name(), costName)
}

// ColumnList describes every column, one line each: its name, its header
// and what it shows (for --columns list).
func ColumnList() []string {
	var lines []string
	for _, col := range append(slices.Clip(columns), verdictColumn) {
		lines = append(lines, fmt.Sprintf("%-13s %-13s %s", col.name(), col.header, col.about))
	}
	return append(lines, fmt.Sprintf("%-13s %-13s %s", costName, "", "cpu-us/acq where Redis reported its CPU time, else cmds/acq"))
}

// ParseColumns splits a --columns value into column names and checks each;
// the error names the known ones.
func ParseColumns(list string) ([]string, error) {
	var names []string
	known := ColumnNames()
	for _, name := range strings.Split(list, ",") {
		if !slices.Contains(known, columnName(name)) {
			return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownColumn, strings.TrimSpace(name), strings.Join(known, ", "))
		}
		names = append(names, columnName(name))
	}
	return names, nil
}

// wideColumns are every column rec needs, as the wide table and markdown
// show them.
func wideColumns(rec *record.Record) []column {
	var shown []column
	for _, col := range columns {
		if col.shown == nil || col.shown(rec) {
			shown = append(shown, col)
		}
	}
	return shown
}

// namedColumns are the columns called names, in that order, whether rec
// needs them or not: they were asked for.
func namedColumns(rec *record.Record, names []string) ([]column, error) {
	var cols []column
	for _, name := range names {
		col, ok := lookupColumn(rec, name)
		if !ok {
			return nil, fmt.Errorf("render: %w %q (known: %s)", ErrUnknownColumn, name, strings.Join(ColumnNames(), ", "))
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// compactColumns are the compact table's columns for rec, each with its
// rank in keepOrder (-1: never dropped).
func compactColumns(rec *record.Record) (cols []column, rank []int) {
	order := slices.Clone(keepOrder)
	if clientCounts(rec) > 1 {
		order = slices.DeleteFunc(order, func(n string) bool { return n == "clients" })
		order = slices.Insert(order, 1, "clients")
	}
	for _, name := range defaultColumns {
		col, _ := lookupColumn(rec, name)
		if col.shown != nil && name != costName && !col.shown(rec) {
			continue
		}
		cols = append(cols, col)
		rank = append(rank, slices.Index(order, name))
	}
	return cols, rank
}

// severalServers reports whether rec's cells ran on more than one server
// (--servers): then a column names each cell's, and is never dropped.
func severalServers(rec *record.Record) bool {
	return slices.ContainsFunc(rec.Cells, func(c record.Cell) bool { return c.Product != rec.Cells[0].Product })
}

// clientCounts is how many distinct client counts rec's cells ran with.
func clientCounts(rec *record.Record) int {
	seen := map[int]bool{}
	for _, c := range rec.Cells {
		seen[c.Clients] = true
	}
	return len(seen)
}

var (
	margins = anyCell(func(c *record.Cell) bool { return c.Margins != nil })
	notices = anyCell(func(c *record.Cell) bool { return c.Margins != nil && c.Margins.LateNotices > 0 })
)

// marginFigure shows a figure of a cell's margins, "-" without them.
func marginFigure(f func(m *record.Margins) string) func(c *record.Cell) string {
	return func(c *record.Cell) string {
		if c.Margins == nil {
			return "-"
		}
		return f(c.Margins)
	}
}
