package render

import (
	"fmt"
	"strings"

	"github.com/lockbench/lockbench/record"
)

// driverNotes say, for each drv:NAME variant of rec, which driver ran it
// (its command, library, version, language and processes) and, where the
// driver reported its library's times, the median acquire in the library
// beside the median lockbench timed around the request at each client
// count: the difference is what the protocol's pipe costs.
func driverNotes(rec *record.Record) []string {
	var notes []string
	index := map[string]int{}  // variant -> its note
	timed := map[string]bool{} // variant and clients with their times said
	for _, c := range rec.Cells {
		d := c.Driver
		if d == nil {
			continue
		}
		i, seen := index[c.Variant]
		if !seen {
			procs := "1 process"
			if d.Procs != 1 {
				procs = fmt.Sprintf("%d processes", d.Procs)
			}
			i, index[c.Variant] = len(notes), len(notes)
			notes = append(notes, fmt.Sprintf("%s: driver %s, %s %s (%s), command %q, %s per cell",
				c.Variant, d.Name, d.Library, d.Version, d.Language, strings.Join(d.Command, " "), procs))
		}
		key := fmt.Sprintf("%s %d", c.Variant, c.Clients)
		if lib := d.LibraryAcquireUS.P50; lib > 0 && !timed[key] {
			timed[key] = true
			notes[i] += fmt.Sprintf("; %d clients: acquire p50 %s in the library, %s as lockbench timed it", c.Clients,
				record.FormatMicros(lib), record.FormatMicros(c.AcquireLatencyUS.P50))
		}
	}
	return notes
}
