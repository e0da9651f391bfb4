package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/record"
)

// librariesDesigns are the designs the libraries are predicted by
// (runner's analogOf): a lock that does not renew, one that does, one with
// fencing tokens, Redlock.
var librariesDesigns = []string{"lua-release", "watchdog", "fenced", "redlock"}

// writeLibraries writes the table of the scenarios across lockbench's
// designs and the library drivers, when findings ran drivers: a row per
// scenario a driver ran in, a column per design and per driver, each cell
// the figures the prediction names (overlaps when there is none) and
// whether the prediction held.
func writeLibraries(w io.Writer, findings []Finding) error {
	var drivers []string
	for _, f := range findings {
		if f.Drivers != nil {
			for _, c := range f.Drivers.Cells {
				if !slices.Contains(drivers, c.Variant) {
					drivers = append(drivers, c.Variant)
				}
			}
		}
	}
	if len(drivers) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Across libraries\n\n`lockbench findings --variants %s` ran each scenario that applies to a library ", strings.Join(drivers, ","))
	b.WriteString("" +
		"with it beside lockbench's designs (each scenario's section below has " +
		"the command and every figure). A library is predicted to do what the scenario's source predicts of lockbench's " +
		"design of its kind: redlock on independent masters, the watchdog for a library that renews its leases, fenced for one " +
		"that hands out fencing tokens where the scenario runs fenced, lua-release " +
		"(SET NX PX, a compare-and-delete release) for the others. A cell shows the figures that prediction names " +
		"(overlaps where the scenario predicts nothing), ✓ where it held, ✗ where it did not; — where the variant does not apply.\n\n")
	cols := append(slices.Clone(librariesDesigns), drivers...)
	fmt.Fprintf(&b, "| scenario | %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	var none []string
	for _, f := range findings {
		if f.Drivers == nil {
			if len(f.DriversNotRun) > 0 {
				none = append(none, f.Name)
			}
			continue
		}
		row := []string{f.Name}
		cells := f.cells()
		for _, v := range cols {
			i := slices.IndexFunc(cells, func(c record.Cell) bool { return c.Variant == v })
			if i < 0 {
				row = append(row, "—")
				continue
			}
			row = append(row, outcome(&cells[i], f.Expect[v]))
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
	}
	if len(none) > 0 {
		fmt.Fprintf(&b, "\nNo library applies to %s (each section says why).\n", strings.Join(none, ", "))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// outcome is a cell's figures that checks name, and whether they held.
func outcome(c *record.Cell, checks []string) string {
	if c.Error != "" {
		return "failed"
	}
	if len(checks) == 0 {
		return fmt.Sprintf("overlaps %d (no prediction)", c.Violations.Overlaps)
	}
	var figures []string
	held := true
	for _, cond := range checks {
		t, err := record.ParseThreshold(cond)
		if err != nil {
			return err.Error()
		}
		ok, v := t.Holds(c)
		held = held && ok
		name := strings.TrimSpace(cond[:strings.IndexAny(cond, "<>=!")])
		f, err := record.LookupFigure(name)
		if err != nil {
			return err.Error()
		}
		value := f.Format(v)
		if name == "unavailable_ms" {
			value = record.FormatMicros(v * 1000)
		}
		if fig := strings.ReplaceAll(strings.TrimSuffix(name, "_ms"), "_", " ") + " " + value; !slices.Contains(figures, fig) {
			figures = append(figures, fig)
		}
	}
	mark := " ✓"
	if !held {
		mark = " **✗**"
	}
	return strings.Join(figures, ", ") + mark
}

// writeLibraryMargins writes the margins of the library drivers' cells:
// what a lease had left when its acquire returned (as the library said),
// how many holds ended after their lease had expired, and how late a lost
// lease was noticed (a renewing library's lease_lost).
func writeLibraryMargins(w io.Writer, findings []Finding) error {
	var b strings.Builder
	for _, f := range findings {
		if f.Drivers == nil {
			continue
		}
		for _, c := range f.Drivers.Cells {
			m := c.Margins
			if c.Error != "" || m == nil {
				continue
			}
			notices := "-"
			if m.Notices > 0 {
				notices = fmt.Sprintf("%d (%d after expiry, p50 %s, max %s)", m.Notices, m.LateNotices,
					record.FormatMicros(m.LossNoticeUS.P50), record.FormatMicros(m.LossNoticeUS.Max))
			}
			late := fmt.Sprintf("%d of %d", m.LateHolds, m.Holds)
			if m.LateHolds > 0 {
				late += fmt.Sprintf(" (p50 %s, max %s)", record.FormatMicros(m.LateUS.P50), record.FormatMicros(m.LateUS.Max))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d of %d | %s | %s |\n", f.Name, c.Variant,
				record.FormatMicros(m.TTLMS*1000), record.FormatMicros(m.ValidityLeftUS.P50), record.FormatMicros(m.ValidityLeftUS.P99),
				m.ExpiredAtAcquire, c.Acquisitions, late, notices)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "## Margins of the libraries\n\n"+
		"Each library driver's cells above: the validity a lease had left when its acquire returned (the library's own "+
		"`validity_ms`, from when lockbench read the reply), the leases already expired then, the holds that ended after "+
		"their lease had expired, and for a renewing library the holders told their lease was lost (`lease_lost`) and how "+
		"long after it had expired (its `renewed` notices move the expiry). docs/drivers.md has the figures under "+
		"contention with a short TTL (node-redlock#296).\n\n"+
		"| scenario | variant | TTL | validity left p50 | p99 | expired at acquire | late holds | loss notices |\n"+
		"|---|---|---|---|---|---|---|---|\n%s\n", b.String())
	return err
}
