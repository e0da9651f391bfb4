package record

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/metrics"
)

// WriteIntervalLog writes the acquire latency of cell as an HdrHistogram
// interval log (format version 1.3, as HdrHistogram's HistogramLogWriter
// writes it): a comment naming the variant, clients and run, a header
// (start time, base time, legend), then one interval histogram per second
// of its measured phase that had acquisitions, values in microseconds.
// Seconds without acquisitions have no histogram and are left out. The
// per-second histograms have 2 significant figures where the cell's have
// 3, so percentiles over the whole log can differ from the record's by up
// to 1%.
//
// The record keeps no exact start of each cell, so the StartTime and
// BaseTime lines both say rec.Started (to the second), and interval i of
// the series starts i seconds after it, for 1 s (the last may have been
// cut short). The times within a cell are exact; the absolute time a
// reader derives from them is not, since the cell ran somewhat after the
// run started (after the earlier cells and its own warm-up).
//
// HdrHistogram's HistogramLogProcessor reads the log; it takes values for
// nanoseconds and prints milliseconds unless told otherwise, so pass
// -outputValueUnitRatio 1 for microseconds (1000 for milliseconds). The
// Interval_Max column is the interval's maximum divided by the ratio
// hdrhistogram-go writes it with (10⁶), so seconds here; readers take
// the maximum from the histogram, not from that column.
func WriteIntervalLog(w io.Writer, rec *Record, cell *Cell) error {
	base := rec.Started.Truncate(time.Second)
	if base.Before(time.Unix(0, 0)) { // no start (zero time): the log's times count from the epoch
		base = time.Unix(0, 0)
	}
	baseMS := base.UnixMilli()
	hlog := hdrhistogram.NewHistogramLogWriter(w)
	hlog.SetBaseTime(baseMS)
	comment := fmt.Sprintf("lockbench run %s: %s (%s client), %d clients", rec.RunID, cell.Variant, cell.Client, cell.Clients)
	if cell.Repetition > 1 {
		comment += fmt.Sprintf(", repetition %d", cell.Repetition)
	}
	comment += fmt.Sprintf(", topology %s; acquire latency, values in microseconds", cell.Topology)
	for _, header := range []func() error{
		func() error { return hlog.OutputComment(strings.Join(strings.Fields(comment), " ")) }, // one line
		hlog.OutputLogFormatVersion,
		func() error { return hlog.OutputStartTime(baseMS) },
		func() error { return hlog.OutputBaseTime(baseMS) },
		hlog.OutputLegend,
	} {
		if err := header(); err != nil {
			return fmt.Errorf("record: interval log of %s: %w", cell.Variant, err)
		}
	}
	for _, s := range cell.Series {
		if s.AcquireHistogram == "" {
			if s.Acquisitions > 0 {
				return fmt.Errorf("record: interval log of %s: second %d has %d acquisitions but no histogram (a record from before lockbench kept them)", cell.Variant, s.T, s.Acquisitions)
			}
			continue
		}
		h, err := metrics.DecodeHistogram(s.AcquireHistogram)
		if err != nil {
			return fmt.Errorf("record: interval log of %s, second %d: %w", cell.Variant, s.T, err)
		}
		start := baseMS + int64(s.T)*int64(time.Second/time.Millisecond)
		h.SetStartTimeMs(start)
		h.SetEndTimeMs(start + int64(time.Second/time.Millisecond))
		if err := hlog.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("record: interval log of %s, second %d: %w", cell.Variant, s.T, err)
		}
	}
	return nil
}

// IntervalLogName is the file name of a cell's log:
// <variant>-c<clients>.hlog, or <variant>-c<clients>-r<repetition>.hlog
// for the second and later repetitions of a cell.
func IntervalLogName(c *Cell) string {
	name := c.Variant + "-c" + strconv.Itoa(c.Clients)
	if c.Repetition > 1 {
		name += "-r" + strconv.Itoa(c.Repetition)
	}
	return name + ".hlog"
}

// WriteIntervalLogs writes the interval log (see [WriteIntervalLog]) of
// every cell of rec that has a series into dir, created if missing, each
// atomically (see [WriteAtomic]) under its [IntervalLogName], and returns
// the paths written. Two cells of one name (a client count listed twice)
// are an error, not one log overwriting the other.
func WriteIntervalLogs(dir string, rec *Record) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	var paths []string
	written := map[string]bool{}
	for i := range rec.Cells {
		c := &rec.Cells[i]
		if len(c.Series) == 0 {
			continue
		}
		name := IntervalLogName(c)
		if written[name] {
			return paths, fmt.Errorf("record: interval logs: two cells of %s, %d clients, repetition %d would both be %s", c.Variant, c.Clients, max(c.Repetition, 1), name)
		}
		written[name] = true
		var buf bytes.Buffer
		if err := WriteIntervalLog(&buf, rec, c); err != nil {
			return paths, err
		}
		path := filepath.Join(dir, name)
		if err := WriteAtomic(path, buf.Bytes()); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
