package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/record"
)

// ControlVariant is the negative control: the variant without a lock,
// which every comparison runs to show that the oracle sees a break. The
// conclusions count the variants apart from it.
const ControlVariant = "none"

// NoData is the verdict of a cell that failed, or made no acquisition,
// and saw no violation.
const NoData = "no data"

// Safe is the verdict of a cell that ran and saw no violation.
const Safe = "safe"

// Verdict says what the oracle made of a cell (a summary of its
// repetitions, see Group.Summary): Safe when it ran and saw no violation,
// else what broke, the worst first: "3 holders" (more at once than the
// limit; "5 holders, limit 3" for a semaphore), "lost 98" (lost updates),
// "stale 3" (stale writes the resource accepted), "stale rel 2" (releases
// that freed a later holder's lock), "12 overlaps" (entries over the
// limit without the occupancy to show it), "fenced 6" (stale writes the
// resource refused: the lock let a stale holder write, its fence held);
// NoData for a failed cell or one without acquisitions.
func Verdict(c *record.Cell) string {
	v := c.Violations
	limit := int64(max(c.Limit, 1))
	n := func(x int64) string { return strconv.FormatInt(x, 10) }
	switch {
	case v.MaxOccupancy > limit && limit == 1:
		return n(v.MaxOccupancy) + " holders"
	case v.MaxOccupancy > limit:
		return fmt.Sprintf("%d holders, limit %d", v.MaxOccupancy, limit)
	case v.LostUpdates > 0 && c.Limit <= 1:
		return "lost " + n(v.LostUpdates)
	case v.StaleWrites > 0:
		return "stale " + n(v.StaleWrites)
	case v.StaleReleases > 0:
		return "stale rel " + n(v.StaleReleases)
	case v.Overlaps > 0:
		return n(v.Overlaps) + " overlaps"
	case v.RejectedWrites > 0:
		return "fenced " + n(v.RejectedWrites)
	case c.Error != "" || c.Acquisitions == 0:
		return NoData
	}
	return Safe
}

// variantVerdict is what one variant's cells came to: the cells that
// ran safely, the first that broke, and whether any ran at all.
type variantVerdict struct {
	name   string
	safe   []record.Cell
	broken *record.Cell
	failed []string // the errors of cells without data
}

// verdicts gathers the summaries of rec's cells by variant, in the order
// the variants first ran.
func verdicts(rec *record.Record) []*variantVerdict {
	var out []*variantVerdict
	index := map[string]*variantVerdict{}
	for _, g := range record.Groups(rec) {
		c := g.Summary()
		v := index[c.Variant]
		if v == nil {
			v = &variantVerdict{name: c.Variant}
			index[c.Variant] = v
			out = append(out, v)
		}
		switch verdict := Verdict(&c); {
		case verdict == Safe:
			v.safe = append(v.safe, c)
		case verdict == NoData:
			if c.Error != "" {
				v.failed = append(v.failed, c.Error)
			}
		case v.broken == nil:
			v.broken = &c
		}
	}
	return out
}

// kept reports whether the variant kept exclusion: some cell ran, none
// broke.
func (v *variantVerdict) kept() bool { return v.broken == nil && len(v.safe) > 0 }

// Conclusions are the lines under the table, computed from its rows:
// which variants kept exclusion (every cell that ran safe; the control
// apart, the variants without data left out), the fastest of those and
// the cheapest of them for Redis, with their figures. What broke the
// others is their rows' verdict. None for a record without cells.
func Conclusions(rec *record.Record) []string {
	vs := verdicts(rec)
	if len(vs) == 0 {
		return nil
	}
	several, servers := clientCounts(rec) > 1, severalServers(rec)
	at := func(c *record.Cell) string {
		var where []string
		switch {
		case several && c.Clients == 1:
			where = append(where, "1 client")
		case several:
			where = append(where, fmt.Sprintf("%d clients", c.Clients))
		}
		if servers {
			where = append(where, "on "+c.Product)
		}
		if len(where) == 0 {
			return ""
		}
		return " (" + strings.Join(where, ", ") + ")"
	}
	var kept, nodata []string
	var control *variantVerdict
	var safe []record.Cell
	compared := 0
	for _, v := range vs {
		switch {
		case v.name == ControlVariant:
			control = v
			continue
		case v.kept():
			kept = append(kept, v.name)
			safe = append(safe, v.safe...)
		case v.broken == nil: // no data: the notes say why
			nodata = append(nodata, v.name)
			continue
		}
		compared++
	}
	var lines []string
	if compared > 0 {
		list := strings.Join(kept, ", ")
		if len(kept) == 0 {
			list = "no variant"
		}
		missing := ""
		if len(nodata) > 0 {
			missing = "; no data: " + strings.Join(nodata, ", ")
		}
		lines = append(lines, fmt.Sprintf("kept exclusion: %s (%d of %d%s%s)", list, len(kept), compared, missing, controlNote(control)))
	} else if control != nil {
		lines = append(lines, "only the control ran"+controlNote(control))
	}
	if len(safe) == 0 {
		return lines
	}
	fastest := &safe[0]
	for i := range safe {
		if safe[i].ThroughputPerS > fastest.ThroughputPerS {
			fastest = &safe[i]
		}
	}
	lines = append(lines, fmt.Sprintf("fastest of those: %s %s acq/s, p99 %s%s",
		fastest.Variant, formatRate(fastest.ThroughputPerS), record.FormatMicros(fastest.AcquireLatencyUS.P99), at(fastest)))
	return append(lines, cheapest(safe, at)...)
}

// controlNote says, in the first conclusion, what the control showed: a
// control that kept exclusion means the load did not contend enough for
// the oracle to see a break.
func controlNote(control *variantVerdict) string {
	switch {
	case control == nil:
		return ""
	case control.broken != nil:
		return fmt.Sprintf("; %s is the control: %s", ControlVariant, Verdict(control.broken))
	case control.kept():
		return fmt.Sprintf("; WARNING: the control, %s, broke nothing: the load did not contend enough to show a break", ControlVariant)
	}
	return fmt.Sprintf("; %s is the control: no data", ControlVariant)
}

// cheapest names the cell of safe that cost Redis the least CPU per
// acquisition; where no server reported its CPU, the one whose clients
// sent the fewest commands per acquisition.
func cheapest(safe []record.Cell, at func(c *record.Cell) string) []string {
	var best *record.Cell
	for i := range safe {
		c := &safe[i]
		if cpu := record.ServerValue(c, func(s *record.ServerCost) float64 { return s.CPUMicrosPerAcquisition }); cpu > 0 &&
			(best == nil || cpu < best.Server.CPUMicrosPerAcquisition) {
			best = c
		}
	}
	if best != nil {
		return []string{fmt.Sprintf("cheapest for Redis: %s %.1f µs CPU per acquisition%s", best.Variant, best.Server.CPUMicrosPerAcquisition, at(best))}
	}
	perAcq := func(c *record.Cell) float64 { return float64(c.Commands) / float64(c.Acquisitions) }
	for i := range safe {
		if c := &safe[i]; c.Acquisitions > 0 && c.Commands > 0 && (best == nil || perAcq(c) < perAcq(best)) {
			best = c
		}
	}
	if best == nil {
		return nil
	}
	why := "Redis reported no CPU time"
	if c := at(best); c != "" {
		why = strings.Trim(c, " ()") + "; " + why
	}
	return []string{fmt.Sprintf("cheapest: %s %.2f client commands per acquisition (%s)", best.Variant, perAcq(best), why)}
}
