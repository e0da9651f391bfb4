package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
)

// Finding is one scenario's prediction and the record of its run.
type Finding struct {
	Name, Tests, Source, Predicts string
	// Command reproduces the run.
	Command string
	// Expect are the checks per variant.
	Expect map[string][]string
	Record *record.Record
}

// WriteFindings writes the findings report in markdown: per scenario, the
// source's prediction, the measured outcome per variant, and whether each
// check held.
func WriteFindings(w io.Writer, findings []Finding) error {
	var b strings.Builder
	agree, disagree := 0, 0
	for _, f := range findings {
		fmt.Fprintf(&b, "## %s\n\n%s.\n\n- **Source:** %s\n- **Predicts:** %s\n- **Run:** `%s`\n\n", f.Name, f.Tests, f.Source, f.Predicts, f.Command)
		if f.Record == nil {
			b.WriteString("Not run.\n\n")
			continue
		}
		b.WriteString("| variant | acq/s | overlaps | max occ | lost updates | stale releases | lease lost | timeouts | longest unavailable | checks |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
		for i := range f.Record.Cells {
			c := &f.Record.Cells[i]
			var verdicts []string
			for _, cond := range f.Expect[c.Variant] {
				ok, err := record.Check(cond, c)
				switch {
				case err != nil:
					verdicts = append(verdicts, err.Error())
				case ok:
					agree++
					verdicts = append(verdicts, "✓ "+cond)
				default:
					disagree++
					verdicts = append(verdicts, "**✗ "+cond+" (disagrees)**")
				}
			}
			if len(verdicts) == 0 {
				verdicts = []string{"(no check: outcome depends on timing)"}
			}
			v := c.Violations
			lost := strconv.FormatInt(v.LostUpdates, 10)
			if c.Limit > 1 {
				lost = "-"
			}
			fmt.Fprintf(&b, "| %s | %.0f | %d | %d/%d | %s | %d | %d | %d | %s | %s |\n", c.Variant, c.ThroughputPerS,
				v.Overlaps, v.MaxOccupancy, max(c.Limit, 1), lost, v.StaleReleases, v.LeaseLost, c.Timeouts,
				record.FormatMicros(v.LongestUnavailableMS*1000), strings.Join(verdicts, "; "))
		}
		b.WriteString("\n")
		for _, c := range f.Record.Cells {
			if len(c.Counters) > 0 {
				fmt.Fprintf(&b, "- %s counted: %s\n", c.Variant, formatCounters(c.Counters))
			}
			for _, e := range c.Faults {
				fmt.Fprintf(&b, "- %s: %s\n", c.Variant, eventLine(e))
			}
		}
		b.WriteString("\n")
	}
	_, err := fmt.Fprintf(w, "# Findings\n\nEvery scenario of `lockbench scenarios`, run against the variants it applies to, next to what its source predicts. %d checks agree with the sources, %d disagree.\n\n%s", agree, disagree, b.String())
	return err
}

// eventLine is a fault event as findings list it: what was done or seen,
// to which node or between which sides, when, how long it took, and why
// it failed if it did.
func eventLine(e measure.FaultEvent) string {
	target := e.Node
	if target == "" {
		for _, field := range strings.Fields(e.Fault) {
			if sides, ok := strings.CutPrefix(field, "sides="); ok {
				target = sides
			}
		}
	}
	line := fmt.Sprintf("%s %s at %.2fs", e.Action, target, e.AtS)
	switch {
	case e.DurationS <= 0:
	case e.Action == "promoted" || e.Action == "demoted":
		line += fmt.Sprintf(" (%.2fs after %s)", e.DurationS, e.Fault)
	default:
		line += fmt.Sprintf(" (took %.2fs)", e.DurationS)
	}
	if e.Error != "" {
		line += " (failed: " + e.Error + ")"
	}
	return line
}
