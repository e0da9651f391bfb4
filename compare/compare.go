package compare

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/lockbench/lockbench/record"
)

// DefaultAlpha is the significance level unless Options say otherwise.
const DefaultAlpha = 0.05

// Confidence is the level of the medians' confidence intervals.
const Confidence = 0.95

// DefaultMetrics are the figures compared unless Options say otherwise, in
// the order a report shows them.
var DefaultMetrics = []string{
	"throughput", "acquire.p50", "acquire.p99", "acquire.p999", "handoff.p99", "server.cpu_us",
	"overlaps", "lost_updates", "stale_releases", "stale_writes", "rejected_writes",
}

// violations are the figures that count a broken promise. A report shows
// them even when they are zero on both sides: for a lock, zero is the news.
// (The fencing counts, stale and rejected writes, are shown only where a
// side has some: they are zero wherever no variant hands out tokens.)
var violations = map[string]bool{"overlaps": true, "lost_updates": true, "stale_releases": true, "lease_lost": true}

// ErrBadOptions is wrapped by Compare's errors about its Options.
var ErrBadOptions = errors.New("compare: bad options")

// Options say how to compare.
type Options struct {
	// Alpha is the significance level: a change counts when the
	// Mann-Whitney U test's p-value is below it. Default DefaultAlpha (0.05);
	// it must be in (0, 1).
	Alpha float64
	// Metrics are the figures compared, by record.LookupFigure name, in
	// this order. Default DefaultMetrics. The metrics of Rules are added
	// when missing.
	Metrics []string
	// Rules turn the comparison into a verdict (Report.Failures). Default
	// none.
	Rules []Rule
}

// CellID is a cell of a plan apart from its repetition and topology: what
// Compare matches between two records. A record has one topology, and a
// baseline taken on one Redis is meant to be compared with a run on
// another (a CI service container); the report says when they differ.
// So is a run on Redis with one on Valkey: the server is part of the
// cell's ID only when a record ran on several (--servers), whose cells
// are then matched server by server.
type CellID struct {
	Variant string `json:"variant"`
	Client  string `json:"client"`
	Clients int    `json:"clients"`
	Keys    int    `json:"keys"`
	Limit   int    `json:"limit"`
	// Server is the cell's server and version (record.Cell.Product) when
	// a record ran on several, else "".
	Server string `json:"server,omitempty"`
}

// idOf is c's ID, with its server when byServer, and a driver's library
// version (drv:NAME@VERSION) only when byVersion: two records of two
// versions of a library are its two sides.
func idOf(c *record.Cell, byServer, byVersion bool) CellID {
	id := CellID{c.Variant, c.Client, c.Clients, c.Keys, c.Limit, ""}
	if byServer {
		id.Server = c.Product
	}
	if !byVersion {
		id.Variant, _ = splitVersion(c.Variant)
	}
	return id
}

// splitVersion is a variant without the library version it names
// (drv:NAME@VERSION), and that version ("" for none).
func splitVersion(variant string) (string, string) {
	if !strings.HasPrefix(variant, "drv:") {
		return variant, ""
	}
	name, version, _ := strings.Cut(variant, "@")
	return name, version
}

// versionsOf are the library versions rec's driver variants name, by the
// variant without its version.
func versionsOf(rec *record.Record) map[string][]string {
	vs := map[string][]string{}
	for _, c := range rec.Cells {
		if name, v := splitVersion(c.Variant); v != "" && !slices.Contains(vs[name], v) {
			vs[name] = append(vs[name], v)
		}
	}
	return vs
}

// severalVersions reports whether some record ran one driver at more than
// one library version.
func severalVersions(recs ...*record.Record) bool {
	for _, rec := range recs {
		for _, vs := range versionsOf(rec) {
			if len(vs) > 1 {
				return true
			}
		}
	}
	return false
}

// severalServers reports whether some record's cells ran on more than
// one server.
func severalServers(recs ...*record.Record) bool {
	for _, rec := range recs {
		if slices.ContainsFunc(rec.Cells, func(c record.Cell) bool { return c.Product != rec.Cells[0].Product }) {
			return true
		}
	}
	return false
}

// String names the cell: lua-release, 8 clients, 1 key, rueidis (on
// valkey 8.0.1).
func (id CellID) String() string {
	s := fmt.Sprintf("%s, %d clients, %d key%s, %s", id.Variant, id.Clients, id.Keys, plural(id.Keys), id.Client)
	if id.Limit > 1 {
		s += fmt.Sprintf(", limit %d", id.Limit)
	}
	if id.Server != "" {
		s += ", on " + id.Server
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Side is one record's repetitions of a cell, for one figure.
type Side struct {
	// Values has one value per repetition that ran, ascending.
	Values []float64
	// Median and its confidence interval [Lo, Hi] at level Confidence; Lo
	// or Hi is infinite when there are too few repetitions for a bound.
	Median, Lo, Hi float64
	// Absent marks a figure the record does not have: a performance figure
	// that is 0 in every repetition (no server figures, no handoffs), lost
	// updates of a semaphore, or a cell none of whose repetitions ran.
	Absent bool

	warnings []string // of the summary
}

// N is the number of repetitions.
func (s Side) N() int { return len(s.Values) }

// Max is the largest value over the repetitions.
func (s Side) Max() float64 {
	if len(s.Values) == 0 {
		return 0
	}
	return s.Values[len(s.Values)-1]
}

// Row is one figure of one cell in both records.
type Row struct {
	Metric   string
	Figure   record.Figure
	Old, New Side
	// Compared is false when a side is absent; Change, P and Significant
	// are then zero.
	Compared bool
	// Change is new median / old median − 1; ±Inf when the old median is
	// 0 and the new one is not.
	Change float64
	// P is the Mann-Whitney U test's p-value (1 when every value on both
	// sides is the same).
	P float64
	// Significant is P < alpha.
	Significant bool
	// Warnings are benchmath's: too few repetitions for a confidence
	// interval or for a difference to be detectable.
	Warnings []string
}

// Worse reports whether the row changed significantly for the worse: up
// for a figure where lower is better, down for one where higher is.
func (r Row) Worse() bool {
	if !r.Significant {
		return false
	}
	if r.Figure.HigherIsBetter {
		return r.Change < 0
	}
	return r.Change > 0
}

// CellReport is the rows of one cell present in both records.
type CellReport struct {
	ID CellID
	// Rows has one row per metric shown, in Report.Metrics order. A
	// performance figure absent from both records has no row.
	Rows []Row
}

// Row returns the cell's row of metric, if shown.
func (c CellReport) Row(metric string) (Row, bool) {
	for _, r := range c.Rows {
		if r.Metric == metric {
			return r, true
		}
	}
	return Row{}, false
}

// Report is the comparison of two records.
type Report struct {
	Old, New *record.Record
	Alpha    float64
	Metrics  []string
	// Cells are the cells present in both records, in the old record's
	// order.
	Cells []CellReport
	// OnlyOld and OnlyNew are cells present in one record only; they are
	// not compared (absolute rules still apply to OnlyNew).
	OnlyOld, OnlyNew []CellID
	Rules            []Rule
	// Failures are the rules that failed, by rule then cell.
	Failures []RuleFailure
	// Warnings are the distinct warnings of every row, and what they mean
	// for the report, in the order first seen.
	Warnings []string
}

// Compare matches the cells of old and new by their identity apart from
// the repetition and topology (variant, client library, clients, keys, limit)
// and compares every metric of every matched cell over the repetitions.
func Compare(old, new *record.Record, opts Options) (*Report, error) {
	if old == nil || new == nil {
		return nil, fmt.Errorf("%w: two records needed", ErrBadOptions)
	}
	if opts.Alpha == 0 {
		opts.Alpha = DefaultAlpha
	}
	if !(opts.Alpha > 0 && opts.Alpha < 1) {
		return nil, fmt.Errorf("%w: alpha must be in (0, 1), got %v", ErrBadOptions, opts.Alpha)
	}
	metrics := slices.Clone(opts.Metrics)
	if len(metrics) == 0 {
		metrics = slices.Clone(DefaultMetrics)
	}
	for _, r := range opts.Rules {
		if !slices.Contains(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
	}
	figures := make([]record.Figure, len(metrics))
	for i, m := range metrics {
		f, err := record.LookupFigure(m)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
		}
		figures[i] = f
	}

	rules := slices.Clone(opts.Rules)
	for i := range rules {
		rules[i].figure = figures[slices.Index(metrics, rules[i].Metric)] // also for a Rule not from ParseRule
	}
	rep := &Report{Old: old, New: new, Alpha: opts.Alpha, Metrics: metrics, Rules: rules}
	thresholds := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	newGroups := map[CellID]record.Group{}
	var newOrder []CellID
	byServer, byVersion := severalServers(old, new), severalVersions(old, new)
	for _, g := range record.Groups(new) {
		id := idOf(g.First(), byServer, byVersion)
		newGroups[id] = g
		newOrder = append(newOrder, id)
	}
	matched := map[CellID]bool{}
	var all []CellReport // every row, also those absent from both records
	for _, og := range record.Groups(old) {
		id := idOf(og.First(), byServer, byVersion)
		ng, ok := newGroups[id]
		if !ok {
			rep.OnlyOld = append(rep.OnlyOld, id)
			continue
		}
		matched[id] = true
		cell := CellReport{ID: id}
		for i, m := range metrics {
			cell.Rows = append(cell.Rows, compareRow(m, figures[i], side(og, m, figures[i], thresholds), side(ng, m, figures[i], thresholds), opts.Alpha))
		}
		all = append(all, cell)
	}
	for _, id := range newOrder {
		if !matched[id] {
			rep.OnlyNew = append(rep.OnlyNew, id)
		}
	}
	for _, rule := range rules {
		for _, cell := range all {
			row, _ := cell.Row(rule.Metric)
			if f, failed := rule.checkRow(cell.ID, row); failed {
				rep.Failures = append(rep.Failures, f)
			}
		}
		for _, id := range rep.OnlyNew {
			if f, failed := rule.checkNew(id, side(newGroups[id], rule.Metric, rule.figure, thresholds)); failed {
				rep.Failures = append(rep.Failures, f)
			}
		}
	}
	var warnings []string
	for _, cell := range all {
		shown := CellReport{ID: cell.ID}
		for _, row := range cell.Rows {
			if !row.Old.Absent || !row.New.Absent {
				shown.Rows = append(shown.Rows, row)
				warnings = append(warnings, row.Warnings...)
			}
		}
		rep.Cells = append(rep.Cells, shown)
	}
	rep.Warnings = explain(warnings, rep)
	return rep, nil
}

// side summarizes a group's repetitions for one figure.
func side(g record.Group, metric string, fig record.Figure, t *benchmath.Thresholds) Side {
	values := g.Values(fig)
	s := Side{Values: values}
	allZero := !slices.ContainsFunc(values, func(v float64) bool { return v != 0 })
	if len(values) == 0 || (allZero && !violations[metric]) || (metric == "lost_updates" && g.First().Limit > 1) {
		s.Absent = true
		slices.Sort(s.Values)
		return s
	}
	sample := benchmath.NewSample(slices.Clone(values), t) // sorts its values
	s.Values = sample.Values
	sum := benchmath.AssumeNothing.Summary(sample, Confidence)
	s.Median, s.Lo, s.Hi = sum.Center, sum.Lo, sum.Hi
	s.warnings = errorStrings(sum.Warnings)
	return s
}

func compareRow(metric string, fig record.Figure, old, new Side, alpha float64) Row {
	row := Row{Metric: metric, Figure: fig, Old: old, New: new, Warnings: dedupe(append(slices.Clone(old.warnings), new.warnings...))}
	if old.Absent || new.Absent {
		return row
	}
	t := &benchmath.Thresholds{CompareAlpha: alpha}
	row.Compared = true
	if constant(old.Values, new.Values) {
		row.P = 1 // the U test refuses samples that are all equal; they do not differ
	} else {
		cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(old.Values), t), benchmath.NewSample(slices.Clone(new.Values), t))
		row.P = cmp.P
		row.Warnings = append(row.Warnings, errorStrings(cmp.Warnings)...)
	}
	row.Significant = row.P < alpha
	switch {
	case old.Median == new.Median:
		row.Change = 0
	case old.Median == 0:
		row.Change = math.Inf(int(math.Copysign(1, new.Median)))
	default:
		row.Change = new.Median/old.Median - 1
	}
	row.Warnings = dedupe(row.Warnings)
	return row
}

// constant reports whether every value of a and b is the same.
func constant(a, b []float64) bool {
	all := append(slices.Clone(a), b...)
	return len(all) == 0 || !slices.ContainsFunc(all, func(v float64) bool { return v != all[0] })
}

func errorStrings(errs []error) []string {
	var s []string
	for _, err := range errs {
		s = append(s, err.Error())
	}
	return s
}

func dedupe(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// explain returns the distinct warnings, with what they mean for this
// report: the advice a reader needs when too few repetitions make every
// change look insignificant.
func explain(warnings []string, rep *Report) []string {
	out := dedupe(warnings)
	tooFew := slices.ContainsFunc(out, func(w string) bool { return strings.Contains(w, "to detect a difference") })
	if tooFew {
		out = append(out, fmt.Sprintf("with %d repetition(s) in the old record and %d in the new, no change can be significant at alpha %v: run both with lockbench run --repeat 5 or more (6 or more for %.0f %% confidence intervals)",
			repetitions(rep.Old), repetitions(rep.New), rep.Alpha, 100*Confidence))
	}
	if rep.Old.Topology.Name != rep.New.Topology.Name {
		out = append(out, fmt.Sprintf("the records ran on different topologies (%s, %s): a change may be the server's, not the lock's", rep.Old.Topology.Name, rep.New.Topology.Name))
	}
	if o, n := productOf(rep.Old), productOf(rep.New); o != n && o != "" && n != "" && !severalServers(rep.Old, rep.New) {
		out = append(out, fmt.Sprintf("the records ran on different servers (%s; %s): a change may be the server's, not the lock's", o, n))
	}
	if !severalVersions(rep.Old, rep.New) {
		oldVersions, newVersions := versionsOf(rep.Old), versionsOf(rep.New)
		for _, name := range slices.Sorted(maps.Keys(oldVersions)) {
			if o, n := oldVersions[name], newVersions[name]; len(n) == 1 && o[0] != n[0] {
				out = append(out, fmt.Sprintf("%s ran its library at %s in the old record and at %s in the new: its two versions are the two sides", name, o[0], n[0]))
			}
		}
	}
	if len(rep.Cells) == 0 && (len(rep.OnlyOld) > 0 || len(rep.OnlyNew) > 0) {
		out = append(out, "no cell is in both records")
	}
	return out
}

// productOf names the server a record ran on, as its head says it: a
// record before lockbench named the product gives Redis' version alone.
func productOf(rec *record.Record) string {
	v := rec.Topology.ServerVersion
	if v != "" && !strings.Contains(v, " ") {
		return "redis " + v
	}
	return v
}

// repetitions is how many times the record's plan ran each cell.
func repetitions(rec *record.Record) int {
	n := 1
	for _, g := range record.Groups(rec) {
		n = max(n, len(g.Cells))
	}
	return n
}
