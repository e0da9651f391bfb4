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
	// Drivers is the run of the library drivers (drv:NAME) that apply to
	// the scenario, beside Record's designs; nil when none ran.
	Drivers *record.Record
	// DriversCommand reproduces Drivers' run.
	DriversCommand string
	// Analogs name, per driver variant, the design whose expectations
	// (in Expect under the driver's variant) are its prediction.
	Analogs map[string]string
	// DriversNotRun are the drivers asked for that do not apply, and why.
	DriversNotRun []NotRun
}

// NotRun is a variant a scenario did not run, and why.
type NotRun struct{ Variant, Why string }

// cells are the cells of f's runs: its designs', then its drivers'.
func (f Finding) cells() []record.Cell {
	var cells []record.Cell
	for _, r := range []*record.Record{f.Record, f.Drivers} {
		if r != nil {
			cells = append(cells, r.Cells...)
		}
	}
	return cells
}

// WriteFindings writes the findings report in markdown: per scenario, the
// source's prediction, the measured outcome per variant, and whether each
// check held; then porcupine's verdicts on the cells' histories against
// the oracle's.
func WriteFindings(w io.Writer, findings []Finding) error {
	var b strings.Builder
	agree, disagree := 0, 0
	for _, f := range findings {
		fmt.Fprintf(&b, "## %s\n\n%s.\n\n- **Source:** %s\n- **Predicts:** %s\n- **Run:** `%s`\n", f.Name, f.Tests, f.Source, f.Predicts, f.Command)
		if f.Drivers != nil {
			var analogs []string
			for _, c := range f.Drivers.Cells {
				analogs = append(analogs, c.Variant+" as "+f.Analogs[c.Variant])
			}
			fmt.Fprintf(&b, "- **Libraries:** `%s` (predicted as lockbench's design of their kind: %s)\n", f.DriversCommand, strings.Join(analogs, ", "))
		}
		for _, n := range f.DriversNotRun {
			fmt.Fprintf(&b, "- %s not run: %s\n", n.Variant, n.Why)
		}
		b.WriteString("\n")
		if f.Record == nil {
			b.WriteString("Not run.\n\n")
			continue
		}
		b.WriteString("| variant | acq/s | overlaps | max occ | lost updates | stale releases | lease lost | timeouts | longest unavailable | checks |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
		cells := f.cells()
		label := cellLabel(cells)
		for i := range cells {
			c := &cells[i]
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
			fmt.Fprintf(&b, "| %s | %.0f | %d | %d/%d | %s | %d | %d | %d | %s | %s |\n", label(c), c.ThroughputPerS,
				v.Overlaps, v.MaxOccupancy, max(c.Limit, 1), lost, v.StaleReleases, v.LeaseLost, c.Timeouts,
				record.FormatMicros(v.LongestUnavailableMS*1000), strings.Join(verdicts, "; "))
		}
		b.WriteString("\n")
		for i := range cells {
			c := &cells[i]
			if len(c.Counters) > 0 {
				fmt.Fprintf(&b, "- %s counted: %s\n", label(c), formatCounters(c.Counters))
			}
			for _, e := range c.Faults {
				fmt.Fprintf(&b, "- %s: %s\n", label(c), eventLine(e))
			}
		}
		b.WriteString("\n")
	}
	if _, err := fmt.Fprintf(w, "# Findings\n\nEvery scenario of `lockbench scenarios`, run against the variants it applies to, next to what its source predicts. %d checks agree with the sources, %d disagree.\n\n", agree, disagree); err != nil {
		return err
	}
	if err := writeLibraries(w, findings); err != nil {
		return err
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := writeLibraryMargins(w, findings); err != nil {
		return err
	}
	if err := writeAcrossServers(w, findings); err != nil {
		return err
	}
	return writeAgreement(w, findings)
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

// writeAgreement writes the table of porcupine's verdicts on the cells'
// histories against the oracle's overlaps, per scenario: they agree on a
// cell when its critical sections are not linearizable exactly where the
// oracle counted overlaps.
func writeAgreement(w io.Writer, findings []Finding) error {
	var b strings.Builder
	var total agreement
	for _, f := range findings {
		if f.Record == nil {
			continue
		}
		for _, server := range serversOf(f.cells()) {
			var a agreement
			for _, c := range f.cells() {
				if server.several && c.Product != server.product {
					continue
				}
				a.add(c)
			}
			total.merge(a)
			fmt.Fprintf(&b, "| %s%s | %d | %d | %d | %d | %d | %s |\n", f.Name, server.suffix(), a.cells, a.overlapping, a.notLinearizable,
				a.agree, a.cells-a.agree, a.note())
		}
	}
	fmt.Fprintf(w, "## Porcupine's second opinion\n\n"+
		"Every cell above recorded its history (`lockbench run --history DIR` writes it; `lockbench check` reads it), "+
		"and porcupine checked its critical sections for linearizability against a lock (a semaphore of the "+
		"cell's limit) per lock name, independently of the oracle (docs/history.md). They agree on a cell when "+
		"the history is not linearizable exactly where the oracle counted overlaps. "+
		"**%d of %d cells agree, %d disagree**; %d histories were not linearizable, %d cells had overlaps.\n\n",
		total.agree, total.cells, total.cells-total.agree, total.notLinearizable, total.overlapping)
	_, err := fmt.Fprintf(w, "| scenario | cells | with overlaps | not linearizable | agree | disagree | notes |\n"+
		"|---|---|---|---|---|---|---|\n%s| **all** | %d | %d | %d | %d | %d | |\n\n", b.String(),
		total.cells, total.overlapping, total.notLinearizable, total.agree, total.cells-total.agree)
	return err
}

// agreement counts the cells of a scenario by the oracle's and porcupine's
// verdicts.
type agreement struct {
	cells, overlapping, notLinearizable, agree int
	unchecked, unknown, cut                    int
}

func (a *agreement) add(c record.Cell) {
	a.cells++
	overlapping := c.Violations.Overlaps > 0
	if overlapping {
		a.overlapping++
	}
	h := c.History
	switch {
	case c.Error != "" || h == nil || h.Check == nil || h.Check.Error != "":
		a.unchecked++
		return
	case h.Check.Verdict == record.VerdictUnknown:
		a.unknown++
		return
	}
	if h.Cut {
		a.cut++
	}
	notLinearizable := h.Check.Verdict == record.VerdictNotLinearizable
	if notLinearizable {
		a.notLinearizable++
	}
	if notLinearizable == overlapping {
		a.agree++
	}
}

func (a *agreement) merge(b agreement) {
	a.cells += b.cells
	a.overlapping += b.overlapping
	a.notLinearizable += b.notLinearizable
	a.agree += b.agree
	a.unchecked += b.unchecked
	a.unknown += b.unknown
	a.cut += b.cut
}

// note says why cells were not compared, if any were not.
func (a agreement) note() string {
	var notes []string
	for _, n := range []struct {
		count int
		what  string
	}{{a.unchecked, "not checked"}, {a.unknown, "verdict unknown"}, {a.cut, "history cut"}} {
		if n.count > 0 {
			notes = append(notes, fmt.Sprintf("%d %s", n.count, n.what))
		}
	}
	return strings.Join(notes, ", ")
}
