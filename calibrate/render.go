package calibrate

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"
	"golang.org/x/perf/benchmath"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// spread is the median and the range of a side's figures over the pairs.
type spread struct{ median, min, max float64 }

// spreadOf is the spread of xs: the median (benchmath's, the mean of the
// middle two of an even count) and the least and greatest; zero for none.
func spreadOf(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	s := benchmath.NewSample(slices.Clone(xs), &benchmath.DefaultThresholds) // sorts its values
	median := benchmath.AssumeNothing.Summary(s, 0.95).Center
	return spread{median: median, min: s.Values[0], max: s.Values[len(s.Values)-1]}
}

// sideSummary is one side's figures over the pairs: the spread of its
// cycles/s and of its CPU per cycle (µs), and its latencies' medians (µs).
type sideSummary struct {
	cycles, cpuUS                  spread
	setP50, setP99, delP50, delP99 float64
}

// librarySummary is one client library's bare loop and lockbench, and the
// spread of lockbench's figures over the bare loop's of the same pair
// (cycles/s, CPU per cycle): the two legs of a pair run back to back, so
// that a change of the machine's load between pairs cancels out in each
// pair's ratio, which it does not in a ratio of the medians.
type librarySummary struct {
	library               string
	bare, lockbench       sideSummary
	cyclesRatio, cpuRatio spread
	// benchmarkRatio is the spread of lockbench's cycles/s over
	// redis-benchmark's in each pair (zero without redis-benchmark).
	benchmarkRatio spread
}

// pairRatios is the spread of lockbench's figure over the bare loop's in
// each pair (pairs without both legs, or with a bare figure of zero, are
// left out); zero without such pairs.
func pairRatios(bare, lockbench []calibrationSample, f func(calibrationSample) float64) spread {
	var ratios []float64
	for i := range min(len(bare), len(lockbench)) {
		if b := f(bare[i]); b > 0 {
			ratios = append(ratios, f(lockbench[i])/b)
		}
	}
	if len(ratios) == 0 {
		return spread{}
	}
	return spreadOf(ratios)
}

// Summary is what a calibration measured, summarized: Write prints it.
type Summary struct {
	pairs     int
	benchmark *sideSummary // nil without redis-benchmark
	libraries []librarySummary
	// connections is each side's; missing, when not empty, says why
	// redis-benchmark's figures are absent.
	connections int
	missing     string
	// conditions are what the figures depend on (Run fills them).
	conditions Conditions
	// benchmarkName is the reference benchmark's name, as the text names
	// it: "" for redis-benchmark, valkey-benchmark on Valkey.
	benchmarkName string
}

// Conditions are what a calibration's ratios depend on: the machine's
// cores and its load average when the calibration started and ended (the
// ratios move with the load and the cores free: rueidis pipelines over
// however many there are, redis-benchmark is one thread), and the
// server's version.
type Conditions struct {
	Cores              int
	LoadStart, LoadEnd float64 // -1 where unknown
	ServerVersion      string
}

// line says the conditions and the pairs, for beside the ratios (Write
// leaves it out when Cores is 0: not measured).
func (c Conditions) line(pairs int) string {
	load := func(v float64) string {
		if v < 0 {
			return "unknown"
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	version := c.ServerVersion
	switch {
	case version == "":
		version = "a server of unknown version"
	case !strings.Contains(version, " "): // Redis' version alone
		version = "redis " + version
	}
	return fmt.Sprintf("measured on %d cores, load average %s at the start and %s at the end, %s, %d pairs; "+
		"the ratios move with the machine's load and cores: compare runs only under like conditions", c.Cores, load(c.LoadStart), load(c.LoadEnd), version, pairs)
}

func summarizeSide(samples []calibrationSample) sideSummary {
	field := func(f func(calibrationSample) float64) []float64 {
		out := make([]float64, len(samples))
		for i, s := range samples {
			out[i] = f(s)
		}
		return out
	}
	median := func(f func(calibrationSample) float64) float64 { return spreadOf(field(f)).median }
	return sideSummary{
		cycles: spreadOf(field(func(s calibrationSample) float64 { return s.cyclesPerS })),
		cpuUS:  spreadOf(field(func(s calibrationSample) float64 { return float64(s.cpuPerCycle.Nanoseconds()) / 1e3 })),
		setP50: median(func(s calibrationSample) float64 { return s.setP50 }),
		setP99: median(func(s calibrationSample) float64 { return s.setP99 }),
		delP50: median(func(s calibrationSample) float64 { return s.delP50 }),
		delP99: median(func(s calibrationSample) float64 { return s.delP99 }),
	}
}

// summarize summarizes the samples of a calibrate run by side and library.
func summarize(samples map[seriesKey][]calibrationSample, libraries []string, benchmark bool) Summary {
	var sum Summary
	if benchmark {
		b := summarizeSide(samples[seriesKey{side: sideBenchmark}])
		sum.benchmark = &b
		sum.pairs = len(samples[seriesKey{side: sideBenchmark}])
	}
	for _, lib := range libraries {
		bare, lockbench := samples[seriesKey{sideBare, lib}], samples[seriesKey{sideLockbench, lib}]
		sum.pairs = max(sum.pairs, len(lockbench))
		sum.libraries = append(sum.libraries, librarySummary{library: lib,
			bare: summarizeSide(bare), lockbench: summarizeSide(lockbench),
			cyclesRatio: pairRatios(bare, lockbench, func(s calibrationSample) float64 { return s.cyclesPerS }),
			cpuRatio:    pairRatios(bare, lockbench, func(s calibrationSample) float64 { return float64(s.cpuPerCycle) }),
			benchmarkRatio: pairRatios(samples[seriesKey{side: sideBenchmark}], lockbench,
				func(s calibrationSample) float64 { return s.cyclesPerS }),
		})
	}
	return sum
}

// calibrationRow is one row of calibrate's table of medians. Latencies
// are in microseconds.
type calibrationRow struct {
	name string
	// library is the client library of a lockbench or bare-loop row; ""
	// for redis-benchmark.
	library        string
	bare           bool // the library's bare loop, not lockbench
	cyclesPerS     float64
	setP50, setP99 float64
	delP50, delP99 float64
	// pairs is the spread of a lockbench row's cycles/s over
	// redis-benchmark's in each pair; zero when unknown.
	pairs spread
}

// row is the row of medians of a side; a bare loop's has no latencies.
func row(name, library string, bare bool, s sideSummary) calibrationRow {
	r := calibrationRow{name: name, library: library, bare: bare, cyclesPerS: s.cycles.median}
	if !bare {
		r.setP50, r.setP99, r.delP50, r.delP99 = s.setP50, s.setP99, s.delP50, s.delP99
	}
	return r
}

// throughputRatio is lockbench's cycles/s over redis-benchmark's; zero when
// the reference is not positive.
func throughputRatio(lockbench, reference float64) float64 {
	if reference <= 0 {
		return 0
	}
	return lockbench / reference
}

// target is a figure measured against its target.
type target struct {
	name          string  // short: "× redis-benchmark", "CPU/bare"
	before, after string  // around the figure: "", "× redis-benchmark's cycles/s"
	value, target float64 // the figure (a median) and its bound
	atMost        bool    // the bound is a ceiling, not a floor
	pairs         spread  // the figure in each pair, min and max; zero when unknown
}

func (t target) met() bool {
	if t.atMost {
		return t.value <= t.target
	}
	return t.value >= t.target
}

// line says the figure and whether it meets its target: "meets target",
// or "below target" ("above target" for a ceiling), "does not meet".
func (t target) line(library string) string {
	bound, verdict := "≥", "meets target"
	if t.atMost {
		bound = "≤"
	}
	if !t.met() {
		verdict = "below target, does not meet"
		if t.atMost {
			verdict = "above target, does not meet"
		}
	}
	pairs := "median"
	if t.pairs.max > 0 {
		pairs = fmt.Sprintf("median; pairs %.2f–%.2f×", t.pairs.min, t.pairs.max)
	}
	return fmt.Sprintf("%s: %s%.2f%s (%s), target %s %.2f×: %s", library, t.before, t.value, t.after, pairs, bound, t.target, verdict)
}

// benchmarkTarget is library's figure against redis-benchmark; ok is false
// when library has no target there.
func benchmarkTarget(library, bench string, ratio float64) (target, bool) {
	goal, ok := calibrateTargets[library]
	return target{name: "× " + bench, after: "× " + bench + "'s cycles/s", value: ratio, target: goal}, ok
}

// targetLine says whether library reaches its target against
// redis-benchmark at ratio.
func targetLine(library, bench string, ratio float64, pairs spread) string {
	t, ok := benchmarkTarget(library, bench, ratio)
	t.pairs = pairs
	if !ok {
		return fmt.Sprintf("%s: %.2f× %s's cycles/s (no target)", library, ratio, bench)
	}
	return t.line(library)
}

// bareTargets are library's figures against its bare loop, the medians
// of the pairs' ratios: throughput, then CPU per cycle.
func bareTargets(l librarySummary) [2]target {
	return [2]target{{
		name: "cycles/s / bare", before: "lockbench's cycles/s ", after: "× the bare loop's",
		value: l.cyclesRatio.median, target: bareThroughputTarget, pairs: l.cyclesRatio,
	}, {
		name: "CPU / bare", before: "lockbench's CPU per cycle ", after: "× the bare loop's",
		value: l.cpuRatio.median, target: bareCPUTarget, atMost: true, pairs: l.cpuRatio,
	}}
}

// Write writes a calibration's figures: the medians against
// redis-benchmark (or the server's own benchmark: valkey-benchmark), lockbench
// against the bare loop, and the verdicts.
func (sum Summary) Write(w io.Writer) error {
	bench := cmp.Or(sum.benchmarkName, "redis-benchmark")
	var rows []calibrationRow
	if sum.benchmark != nil {
		rows = append(rows, row(bench, "", false, *sum.benchmark))
	}
	for _, l := range sum.libraries {
		lockbench := row("lockbench "+l.library, l.library, false, l.lockbench)
		lockbench.pairs = l.benchmarkRatio
		rows = append(rows, row("bare loop "+l.library, l.library, true, l.bare), lockbench)
	}
	if _, err := fmt.Fprintf(w, "medians of %d pairs: %s, then each library's bare loop (its own calls, no lockbench) and lockbench, in turn\n", sum.pairs, bench); err != nil {
		return err
	}
	if sum.conditions.Cores > 0 {
		if _, err := fmt.Fprintln(w, sum.conditions.line(sum.pairs)); err != nil {
			return err
		}
	}
	if err := renderCalibration(w, rows, sum.connections, sum.missing, bench); err != nil {
		return err
	}
	if err := renderOverhead(w, sum); err != nil {
		return err
	}
	var lines, unmet []string
	all := 0
	count := func(library string, t target) {
		all++
		if !t.met() {
			unmet = append(unmet, library+" "+t.name)
		}
	}
	if b := sum.benchmark; b != nil {
		lines = append(lines, fmt.Sprintf("%s: %s cycles/s (%s), %s of its own CPU per cycle", bench,
			formatCount(b.cycles.median), formatRange(b.cycles, formatCount), formatCPU(b.cpuUS.median)))
		for _, l := range sum.libraries {
			if t, ok := benchmarkTarget(l.library, bench, throughputRatio(l.lockbench.cycles.median, b.cycles.median)); ok {
				t.pairs = l.benchmarkRatio
				count(l.library, t)
			}
		}
	}
	for _, l := range sum.libraries {
		for _, t := range bareTargets(l) {
			lines = append(lines, t.line(l.library))
			count(l.library, t)
		}
	}
	switch {
	case len(unmet) == 0:
		lines = append(lines, fmt.Sprintf("calibrate: meets all %d targets (by the medians of %d pairs)", all, sum.pairs))
	default:
		lines = append(lines, fmt.Sprintf("calibrate: does not meet %d of %d targets (by the medians of %d pairs: %s)", len(unmet), all, sum.pairs, strings.Join(unmet, ", ")))
	}
	if sum.benchmark == nil {
		lines = append(lines, "(the targets against "+bench+" are not checked without it)")
	}
	for _, line := range lines {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// renderOverhead writes lockbench against each library's bare loop: the
// medians and their ranges over the pairs, and the pairs' ratios.
func renderOverhead(w io.Writer, sum Summary) error {
	t := render.TextTable(w, tw.CellConfig{Alignment: tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft}, Global: tw.AlignRight}})
	t.Header([]string{"", "bare loop cycles/s", "lockbench cycles/s", "× bare", "bare loop CPU/cycle", "lockbench CPU/cycle", "× bare"})
	var body [][]string
	for _, l := range sum.libraries {
		body = append(body, []string{l.library,
			withRange(l.bare.cycles, formatCount), withRange(l.lockbench.cycles, formatCount), withRange(l.cyclesRatio, formatRatio),
			withRange(l.bare.cpuUS, formatCPU), withRange(l.lockbench.cpuUS, formatCPU), withRange(l.cpuRatio, formatRatio)})
	}
	if err := t.Bulk(body); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "median (min–max) over the pairs; CPU is this process's (getrusage) per cycle, warm-up included; × bare is lockbench's figure over the bare loop's run just before it, median (min–max) over the pairs")
	return err
}

func formatCount(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

func formatRatio(r float64) string { return strconv.FormatFloat(r, 'f', 2, 64) }

func formatCPU(us float64) string { return strconv.FormatFloat(us, 'f', 1, 64) + "µs" }

func formatRange(s spread, f func(float64) string) string { return f(s.min) + "–" + f(s.max) }

func withRange(s spread, f func(float64) string) string {
	return f(s.median) + " (" + formatRange(s, f) + ")"
}

// renderCalibration writes the table of medians, the notes, and a target
// line per lockbench row against redis-benchmark. missing, when not
// empty, says why redis-benchmark's row is absent.
func renderCalibration(w io.Writer, rows []calibrationRow, connections int, missing, bench string) error {
	var reference float64
	for _, r := range rows {
		if r.library == "" {
			reference = r.cyclesPerS
		}
	}
	t := render.TextTable(w, tw.CellConfig{Alignment: tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight}, Global: tw.AlignRight}})
	t.Header([]string{"", "cycles/s", "SET p50", "SET p99", "DEL p50", "DEL p99", "× " + bench})
	var body [][]string
	for _, r := range rows {
		ratio := "-"
		if reference > 0 {
			ratio = strconv.FormatFloat(throughputRatio(r.cyclesPerS, reference), 'f', 2, 64)
		}
		body = append(body, []string{r.name, strconv.FormatFloat(r.cyclesPerS, 'f', 0, 64),
			record.FormatMicros(r.setP50), record.FormatMicros(r.setP99), record.FormatMicros(r.delP50), record.FormatMicros(r.delP99), ratio})
	}
	if err := t.Bulk(body); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	lines := []string{fmt.Sprintf("one %s-server, %d connections; a cycle is SET key token NX PX %d then DEL key, a key per connection",
		strings.TrimSuffix(bench, "-benchmark"), connections, calibrateTTL.Milliseconds())}
	if slices.ContainsFunc(rows, func(r calibrationRow) bool { return r.library == "rueidis" }) {
		lines = append(lines, "rueidis pipelines concurrent commands over shared connections (auto-pipelining); "+bench+" (-P 1) and go-redis send one at a time per connection")
	}
	if slices.ContainsFunc(rows, func(r calibrationRow) bool { return r.bare }) {
		lines = append(lines, "a bare loop times no command: its latencies are not measured")
	}
	if missing != "" {
		lines = append(lines, missing)
	} else {
		lines = append(lines, bench+" runs SET and DEL apart (random keys); its cycles/s is 1 / (1/SET rps + 1/DEL rps)")
		for _, r := range rows {
			if r.library != "" && !r.bare {
				lines = append(lines, targetLine(r.library, bench, throughputRatio(r.cyclesPerS, reference), r.pairs))
			}
		}
	}
	for _, line := range lines {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
