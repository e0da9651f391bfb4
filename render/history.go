package render

import (
	"fmt"
	"time"

	"github.com/lockbench/lockbench/record"
)

// HistoryNotes are the lines a run says about its cells' histories (run
// --history, --check-history): where each went and how many events it
// holds (and dropped), why one could not be kept, and porcupine's verdict
// beside the oracle's overlaps. checked counts the histories checked,
// failed those of them that are not linearizable.
func HistoryNotes(rec *record.Record) (notes []string, failed, checked int) {
	for _, c := range rec.Cells {
		h := c.History
		if h == nil {
			continue
		}
		name := fmt.Sprintf("%s, %d clients", c.Variant, c.Clients)
		if h.Path != "" {
			cut := ""
			if h.Cut {
				cut = fmt.Sprintf(" (cut: %d events dropped)", h.Dropped)
			}
			notes = append(notes, fmt.Sprintf("history of %s: %s, %d events%s", name, h.Path, h.Events, cut))
		}
		if h.Error != "" {
			notes = append(notes, fmt.Sprintf("history of %s: %s", name, h.Error))
		}
		if h.Check == nil {
			continue
		}
		checked++
		notes = append(notes, fmt.Sprintf("history of %s: %s (oracle: %d overlaps)", name, HistoryVerdict(h.Check), c.Violations.Overlaps))
		if h.Check.Verdict == record.VerdictNotLinearizable {
			failed++
		}
	}
	return notes, failed, checked
}

// HistoryVerdict is a history check's verdict with its window, in one
// line.
func HistoryVerdict(c *record.HistoryCheck) string {
	switch {
	case c.Error != "":
		return "not checked: " + c.Error
	case c.Window == nil:
		return c.Verdict
	}
	w := c.Window
	return fmt.Sprintf("%s: %s, leases %v of clients %v, %s to %s", c.Verdict, w.Key, w.Leases, w.Processes,
		time.Duration(w.FromNS), time.Duration(w.ToNS))
}
