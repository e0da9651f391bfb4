package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/record"
)

// driverNotes say, for each drv:NAME variant of rec, which driver ran it
// (its command, library, version, language and processes) and, where the
// driver reported its library's times, the median acquire in the library
// beside the median lockbench timed around the request at each client
// count: the difference is what the protocol's pipe costs. Then, for each
// cell whose processes stalled (stalled), the requests left unanswered and
// by which process.
func driverNotes(rec *record.Record) []string {
	var notes []string
	index := map[string]int{}  // variant -> its note
	timed := map[string]bool{} // variant and clients with their times said
	var unanswered []string    // after the drivers' notes, a cell's each
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
		if stalled(c) {
			unanswered = append(unanswered, unansweredNote(c))
		}
		key := fmt.Sprintf("%s %d", c.Variant, c.Clients)
		if lib := d.LibraryAcquireUS.P50; lib > 0 && !timed[key] {
			timed[key] = true
			notes[i] += fmt.Sprintf("; %d clients: acquire p50 %s in the library, %s as lockbench timed it", c.Clients,
				record.FormatMicros(lib), record.FormatMicros(c.AcquireLatencyUS.P50))
		}
	}
	return append(notes, unanswered...)
}

// stalled reports whether a driver cell's unanswered requests say that a
// process stalled: one answered none, or the cell acquired nothing. A busy
// driver's waiting acquires at the end are no news.
func stalled(c record.Cell) bool {
	for _, u := range c.Driver.Unanswered {
		if u.Answered == 0 || c.Acquisitions == 0 {
			return true
		}
	}
	return false
}

// unansweredNote says how many requests a driver cell's processes left
// unanswered at its end, and which process left them: "drv:mute, 2
// clients: 2 requests unanswered at the cell's end: driver-1 pid 4242: 1
// acquire (0 answered), driver-2 pid 4243: 1 acquire (0 answered)".
func unansweredNote(c record.Cell) string {
	total := 0
	var procs []string
	for _, u := range c.Driver.Unanswered {
		total += u.Requests
		var ops []string
		for _, op := range slices.Sorted(maps.Keys(u.ByOp)) {
			ops = append(ops, fmt.Sprintf("%d %s", u.ByOp[op], op))
		}
		procs = append(procs, fmt.Sprintf("driver-%d pid %d: %s (%d answered)", u.Process, u.PID, strings.Join(ops, ", "), u.Answered))
	}
	requests := "requests"
	if total == 1 {
		requests = "request"
	}
	return fmt.Sprintf("%s, %d clients: %d %s unanswered at the cell's end: %s", c.Variant, c.Clients, total, requests, strings.Join(procs, ", "))
}
