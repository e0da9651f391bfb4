package render

import (
	"fmt"

	"github.com/lockbench/lockbench/record"
)

// A cell is said to have gone silent when at least silentSeconds of its
// measured seconds, and silentShare of them, had no acquisition.
const (
	silentSeconds = 2
	silentShare   = 0.2
)

// silenceNotes say, per cell that spent a large share of its measured
// time without any acquisition, how much and its longest such run, from
// the per-second series: a lock left held (a release lost in a
// failover, a holder gone), or a service that stopped granting, which
// the verdict "safe" alone does not tell. For instance "lua-release, 4
// clients: no acquisition in 7 of its 9 measured seconds; the longest
// run 7 s, from 2 s to the end, while 17198 tries were refused".
func silenceNotes(rec *record.Record) []string {
	var notes []string
	for _, c := range rec.Cells {
		if c.Error != "" || len(c.Series) == 0 {
			continue
		}
		silent, run, longest, from := 0, 0, 0, 0
		var refused int64
		for i, s := range c.Series {
			if s.Acquisitions > 0 {
				run = 0
				continue
			}
			silent++
			refused += s.FailedAttempts
			if run++; run > longest {
				longest, from = run, i-run+1
			}
		}
		if silent < silentSeconds || float64(silent) < silentShare*float64(len(c.Series)) {
			continue
		}
		until := fmt.Sprintf("to %d s", c.Series[from].T+longest)
		if from+longest == len(c.Series) {
			until = "to the end"
		}
		notes = append(notes, fmt.Sprintf("%s, %d clients: no acquisition in %d of its %d measured seconds; the longest run %d s, from %d s %s, while %d tries were refused",
			c.Variant, c.Clients, silent, len(c.Series), longest, c.Series[from].T, until, refused))
	}
	return notes
}
