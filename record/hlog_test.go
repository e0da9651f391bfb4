package record_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/record"
)

// logStart is when the test records start: not on a whole second, as a
// run's start never is.
var logStart = time.Date(2026, 11, 30, 10, 17, 51, 250e6, time.UTC)

// shardLoad is what one shard records: per second of its series, the
// acquire latencies of that second (none: the second only saw a busy try).
type shardLoad [][]time.Duration

// record plays load into a fresh recorder whose series starts at logStart.
func (load shardLoad) record() *metrics.Recorder {
	r := metrics.NewRecorder(logStart)
	for second, latencies := range load {
		at := logStart.Add(time.Duration(second)*time.Second + 300*time.Millisecond)
		r.Add(at, metrics.Attempt)
		if len(latencies) == 0 {
			r.Add(at, metrics.Busy)
		}
		for _, d := range latencies {
			r.Add(at, metrics.Attempt)
			r.Acquired(at, d, d)
		}
	}
	return r
}

// spread returns n latencies from 1 to n times step.
func spread(n int, step time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * step
	}
	return out
}

// cellOf builds a cell the way a run does: recorders, metrics.Merge,
// record.NewCell.
func cellOf(t *testing.T, recs ...*metrics.Recorder) record.Cell {
	t.Helper()
	out := metrics.CellSummary{
		Measured: metrics.Merge(recs, nil),
		Warmup:   metrics.Merge(nil, nil),
		Handoff:  oracle.New(1, 1).Handoff(),
		Elapsed:  4 * time.Second,
	}
	cell, err := record.NewCell(out, oracle.Report{})
	if err != nil {
		t.Fatal(err)
	}
	cell.Variant, cell.Client, cell.Clients, cell.Topology, cell.Repetition = "lua-release", "rueidis", 8, "local:single", 1
	return cell
}

func recordOf(cells ...record.Cell) *record.Record {
	return &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: "hlog-run", Started: logStart, Cells: cells}
}

// readIntervals reads every interval histogram of a log.
func readIntervals(t *testing.T, log []byte) []*hdrhistogram.Histogram {
	t.Helper()
	reader := hdrhistogram.NewHistogramLogReader(bytes.NewReader(log))
	var intervals []*hdrhistogram.Histogram
	for {
		h, err := reader.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("reading interval %d: %v", len(intervals)+1, err)
		}
		if h == nil {
			return intervals
		}
		intervals = append(intervals, h)
	}
}

func TestWriteIntervalLogs(t *testing.T) {
	// Four seconds, the third without acquisitions.
	cell := cellOf(t, shardLoad{
		spread(1000, time.Microsecond),
		spread(200, 50*time.Microsecond),
		nil,
		spread(50, time.Millisecond),
	}.record())
	if len(cell.Series) != 4 {
		t.Fatalf("series of %d seconds, want 4", len(cell.Series))
	}
	failed := record.Cell{Variant: "redlock", Clients: 8, Error: "no quorum"}
	rec := recordOf(cell, failed)

	dir := filepath.Join(t.TempDir(), "logs", "run") // not there yet
	paths, err := record.WriteIntervalLogs(dir, rec)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "lua-release-c8.hlog"); len(paths) != 1 || paths[0] != want {
		t.Fatalf("paths %q, want only %q (the failed cell has no series)", paths, want)
	}
	log, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	text := string(log)
	for _, want := range []string{
		"#lockbench run hlog-run: lua-release (rueidis client), 8 clients, topology local:single; acquire latency, values in microseconds\n",
		"#[Histogram log format version 1.3]\n",
		"#[StartTime: 1796033871 (seconds since epoch), 2026-11-30T10:17:51Z]\n",
		"#[BaseTime: 1796033871 (seconds since epoch)]\n",
		"\n\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
		"\n1.000000,1.000000,",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}

	intervals := readIntervals(t, log)
	var withAcquisitions int
	for _, s := range cell.Series {
		if s.Acquisitions > 0 {
			withAcquisitions++
		}
	}
	if len(intervals) != withAcquisitions {
		t.Fatalf("%d intervals, want %d (the seconds with acquisitions)", len(intervals), withAcquisitions)
	}
	baseMS := logStart.Truncate(time.Second).UnixMilli()
	var total int64
	for _, h := range intervals {
		total += h.TotalCount()
		second := int((h.StartTimeMs() - baseMS) / 1000)
		if second < 0 || second >= len(cell.Series) || h.StartTimeMs() != baseMS+int64(second)*1000 {
			t.Fatalf("interval starts at %d ms, not on a second of the series (base %d ms)", h.StartTimeMs(), baseMS)
		}
		s := cell.Series[second]
		if length := h.EndTimeMs() - h.StartTimeMs(); length != 1000 {
			t.Errorf("second %d: interval of %d ms, want 1000", second, length)
		}
		if h.TotalCount() != s.Acquisitions {
			t.Errorf("second %d: %d values, want its %d acquisitions", second, h.TotalCount(), s.Acquisitions)
		}
		if p99 := float64(h.ValueAtQuantile(99)); p99 != s.AcquireP99US {
			t.Errorf("second %d: p99 %v µs, series says %v", second, p99, s.AcquireP99US)
		}
	}
	if total != cell.Acquisitions {
		t.Errorf("intervals hold %d values, want the cell's %d acquisitions", total, cell.Acquisitions)
	}

	// A second log of the same name would overwrite the first.
	if _, err := record.WriteIntervalLogs(dir, recordOf(cell, cell)); err == nil {
		t.Error("two cells of one name: no error")
	}
}

func TestWriteIntervalLogNeedsHistograms(t *testing.T) {
	cell := cellOf(t, shardLoad{spread(10, time.Microsecond)}.record())
	cell.Series[0].AcquireHistogram = "" // as in a record written before they were kept
	if err := record.WriteIntervalLog(&bytes.Buffer{}, recordOf(cell), &cell); err == nil {
		t.Error("a second with acquisitions but no histogram: no error")
	}
}

// TestMergeSeriesHistograms merges two shards' records and checks every
// second against the shards recorded together.
func TestMergeSeriesHistograms(t *testing.T) {
	loadA := shardLoad{spread(300, time.Microsecond), spread(100, 10*time.Microsecond), nil}
	loadB := shardLoad{spread(10, time.Millisecond), nil, spread(40, time.Microsecond), spread(5, time.Millisecond)}
	a, b := cellOf(t, loadA.record()), cellOf(t, loadB.record())
	together := cellOf(t, loadA.record(), loadB.record())
	recA, recB := recordOf(a), recordOf(b)
	seriesA := append([]measure.Second(nil), a.Series...) // Merge must leave its inputs alone

	merged, err := record.Merge([]*record.Record{recA, recB})
	if err != nil {
		t.Fatal(err)
	}
	got := merged.Cells[0].Series
	if len(got) != len(together.Series) {
		t.Fatalf("merged series of %d seconds, want %d", len(got), len(together.Series))
	}
	for i, s := range got {
		var want int64
		for _, shard := range [][]measure.Second{seriesA, b.Series} {
			if i < len(shard) {
				want += shard[i].Acquisitions
			}
		}
		if s.Acquisitions != want {
			t.Errorf("second %d: %d acquisitions, want %d", i, s.Acquisitions, want)
		}
		if want == 0 {
			if s.AcquireHistogram != "" {
				t.Errorf("second %d: a histogram without acquisitions", i)
			}
			continue
		}
		h, err := metrics.DecodeHistogram(s.AcquireHistogram)
		if err != nil {
			t.Fatalf("second %d: %v", i, err)
		}
		if h.TotalCount() != want {
			t.Errorf("second %d: histogram of %d values, want the sum %d", i, h.TotalCount(), want)
		}
		exact := together.Series[i]
		if s.AcquireP50US != exact.AcquireP50US || s.AcquireP99US != exact.AcquireP99US {
			t.Errorf("second %d: p50 %v p99 %v µs, want %v and %v as if recorded together",
				i, s.AcquireP50US, s.AcquireP99US, exact.AcquireP50US, exact.AcquireP99US)
		}
	}
	for i := range seriesA {
		if recA.Cells[0].Series[i] != seriesA[i] {
			t.Errorf("Merge changed second %d of its first input", i)
		}
	}

	// A shard without per-second histograms leaves the merged seconds
	// without one, and their percentiles at the larger of the two.
	for i := range recB.Cells[0].Series {
		recB.Cells[0].Series[i].AcquireHistogram = ""
	}
	merged, err = record.Merge([]*record.Record{recA, recB})
	if err != nil {
		t.Fatal(err)
	}
	s := merged.Cells[0].Series[0]
	if s.AcquireHistogram != "" || s.AcquireP99US != max(a.Series[0].AcquireP99US, b.Series[0].AcquireP99US) {
		t.Errorf("second 0 merged with an old record: histogram %q, p99 %v µs", s.AcquireHistogram, s.AcquireP99US)
	}
	if s := merged.Cells[0].Series[1]; s.AcquireHistogram != a.Series[1].AcquireHistogram {
		t.Errorf("second 1, without acquisitions in the old record, lost its histogram")
	}
}

func TestIntervalLogName(t *testing.T) {
	for _, tt := range []struct {
		variant             string
		clients, repetition int
		want                string
	}{
		{"lua-release", 16, 0, "lua-release-c16.hlog"},
		{"lua-release", 16, 1, "lua-release-c16.hlog"},
		{"redlock", 1, 2, "redlock-c1-r2.hlog"},
		{"semaphore-zset", 256, 10, "semaphore-zset-c256-r10.hlog"},
	} {
		c := record.Cell{Variant: tt.variant, Clients: tt.clients, Repetition: tt.repetition}
		if got := record.IntervalLogName(&c); got != tt.want {
			t.Errorf("IntervalLogName(%s, %d clients, repetition %d) = %q, want %q", tt.variant, tt.clients, tt.repetition, got, tt.want)
		}
	}
}
