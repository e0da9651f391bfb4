package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/record"
)

// ErrBadRule is wrapped by every error about a rule's text.
var ErrBadRule = errors.New("bad rule")

// ruleExamples is what a malformed rule's error suggests.
const ruleExamples = "want METRIC:+N% or METRIC:-N% (significantly worse by more than N %) or METRIC:OP VALUE " +
	"(met by a repetition of the new record; OP is >, >=, <, <=, == (or =) or !=), e.g. acquire.p99:+10%, throughput:-5%, overlaps:>0"

// Rule is a condition that fails a comparison, as --fail-on gives it. Two
// kinds:
//
//   - a relative rule, METRIC:+N% or METRIC:-N%, fails a cell when the
//     metric got worse by more than N % and the change is significant at
//     alpha. The sign is the direction of worse: + for figures where lower
//     is better (acquire.p99:+10%), − for those where higher is better
//     (throughput:-5%).
//   - an absolute rule, METRIC:OP VALUE with OP one of > >= < <= == !=,
//     fails a cell when any repetition of it in the new record meets the
//     condition: for overlaps:>0, when the maximum over the repetitions is
//     above 0, since one violation is one too many. It is checked on every
//     cell of the new record, also those the old record lacks. Latencies
//     take durations (acquire.p99:>5ms) or microseconds.
type Rule struct {
	// Text is the rule as written.
	Text string
	// Metric is the figure it reads, a record.LookupFigure name.
	Metric string

	figure record.Figure
	// percent is a relative rule's N/100; condition an absolute rule's
	// threshold (Text empty for a relative rule).
	percent   float64
	condition record.Threshold
}

// Relative reports whether the rule is a relative (percent) one.
func (r Rule) Relative() bool { return r.condition.Text == "" }

// ParseRule parses a --fail-on rule (see Rule).
func ParseRule(text string) (Rule, error) {
	bad := func(format string, args ...any) (Rule, error) {
		return Rule{}, fmt.Errorf("%w %q: %s", ErrBadRule, text, fmt.Sprintf(format, args...))
	}
	name, cond, found := strings.Cut(text, ":")
	name, cond = strings.TrimSpace(name), strings.TrimSpace(cond)
	if !found || name == "" || cond == "" {
		return bad("%s", ruleExamples)
	}
	fig, err := record.LookupFigure(name)
	if err != nil {
		return Rule{}, fmt.Errorf("%w %q: %w", ErrBadRule, text, err)
	}
	r := Rule{Text: text, Metric: name, figure: fig}

	if number, ok := strings.CutSuffix(cond, "%"); ok {
		worse, direction := "+", "lower is better for "+name+", so a regression is a rise"
		if fig.HigherIsBetter {
			worse, direction = "-", "higher is better for "+name+", so a regression is a fall"
		}
		sign := number[:min(1, len(number))]
		if sign != "+" && sign != "-" {
			return bad("a percent needs the sign of a regression: %s: write %s:%s%s%%", direction, name, worse, number)
		}
		if sign != worse {
			return bad("%s: write %s:%s%s%%", direction, name, worse, number[1:])
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(number[1:]), 64)
		if err != nil || p < 0 || math.IsInf(p, 0) || math.IsNaN(p) || strings.ContainsAny(number[1:], "+-") {
			return bad("%q is not a percent (a number, 0 or more, then %%)", number[1:])
		}
		r.percent = p / 100
		return r, nil
	}

	// An absolute rule is a threshold on the new record's repetitions.
	if !strings.ContainsAny(cond[:1], "<>=!") {
		return bad("%s", ruleExamples)
	}
	if r.condition, err = record.ParseThreshold(name + cond); err != nil {
		_, detail, _ := strings.Cut(err.Error(), `": `) // after the threshold's own text
		return bad("%s", detail)
	}
	return r, nil
}

// RuleFailure is a --fail-on rule that failed on a cell.
type RuleFailure struct {
	Rule Rule
	Cell CellID
	// Detail says what the rule saw: the change and its p-value for a
	// relative rule, the repetitions that met an absolute one.
	Detail string
}

// String is one line: lua-release, 8 clients, 1 key, rueidis:
// throughput:-10%: -50.12% (612 → 305, p=0.008 n=5).
func (f RuleFailure) String() string {
	return fmt.Sprintf("%s: %s: %s", f.Cell, f.Rule.Text, f.Detail)
}

// checkRow checks the rule on a cell present in both records.
func (r Rule) checkRow(id CellID, row Row) (RuleFailure, bool) {
	if !r.Relative() {
		return r.checkNew(id, row.New)
	}
	if !row.Compared || !row.Worse() || math.Abs(row.Change) <= r.percent {
		return RuleFailure{}, false
	}
	return RuleFailure{Rule: r, Cell: id, Detail: fmt.Sprintf("%s (%s → %s, %s)",
		formatChange(row.Change), formatValue(r.figure, row.Old.Median), formatValue(r.figure, row.New.Median), pn(row))}, true
}

// checkNew checks an absolute rule on the new record's repetitions of a
// cell.
func (r Rule) checkNew(id CellID, s Side) (RuleFailure, bool) {
	if r.Relative() || s.Absent {
		return RuleFailure{}, false
	}
	var met []float64
	for _, v := range s.Values {
		if r.condition.Meets(v) {
			met = append(met, v)
		}
	}
	if len(met) == 0 {
		return RuleFailure{}, false
	}
	worst, which := met[len(met)-1], "max" // Values are ascending
	if strings.Contains(r.Text, ":<") {
		worst, which = met[0], "min"
	}
	return RuleFailure{Rule: r, Cell: id, Detail: fmt.Sprintf("%d of %d repetitions of the new record, %s %s",
		len(met), s.N(), which, formatValue(r.figure, worst))}, true
}
