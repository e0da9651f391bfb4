package calibrate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The pairs take turns: redis-benchmark, then every library's bare loop
// and lockbench, pair after pair; without redis-benchmark, the rest in
// the same order.
func TestCalibrateSteps(t *testing.T) {
	libs := []string{"rueidis", "go-redis"}
	var got []string
	for _, s := range calibrationSteps(3, libs, true) {
		got = append(got, fmt.Sprintf("%d %s %s", s.pair, s.side, s.library))
	}
	var want []string
	for pair := 1; pair <= 3; pair++ {
		want = append(want, fmt.Sprintf("%d redis-benchmark ", pair))
		for _, lib := range libs {
			want = append(want, fmt.Sprintf("%d bare loop %s", pair, lib), fmt.Sprintf("%d lockbench %s", pair, lib))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range calibrationSteps(2, libs[:1], false) {
		if s.side == sideBenchmark {
			t.Errorf("a redis-benchmark step without redis-benchmark: %+v", s)
		}
	}
	if n := len(calibrationSteps(2, libs[:1], false)); n != 4 {
		t.Errorf("%d steps for 2 pairs of one library without redis-benchmark, want 4", n)
	}
}

// runCalibration takes the measurements in the steps' order and files
// each under its side and library, in the order taken.
func TestCalibrateRunsStepsInOrder(t *testing.T) {
	var calls []string
	n := 0
	sample := func(name string) (calibrationSample, error) {
		n++
		calls = append(calls, name)
		return calibrationSample{cyclesPerS: float64(n)}, nil
	}
	m := &measurers{
		benchmark: func(context.Context) (calibrationSample, error) { return sample("redis-benchmark") },
		bare:      func(_ context.Context, lib string) (calibrationSample, error) { return sample("bare " + lib) },
		lockbench: func(_ context.Context, lib string) (calibrationSample, error) { return sample("lockbench " + lib) },
	}
	steps := calibrationSteps(2, []string{"rueidis", "go-redis"}, true)
	samples, err := runCalibration(t.Context(), steps, m, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"redis-benchmark", "bare rueidis", "lockbench rueidis", "bare go-redis", "lockbench go-redis"}
	if !slices.Equal(calls, append(slices.Clone(want), want...)) {
		t.Errorf("calls %q, want %q twice", calls, want)
	}
	for key, wantCycles := range map[seriesKey][]float64{
		{sideBenchmark, ""}:         {1, 6},
		{sideBare, "rueidis"}:       {2, 7},
		{sideLockbench, "go-redis"}: {5, 10},
	} {
		var got []float64
		for _, s := range samples[key] {
			got = append(got, s.cyclesPerS)
		}
		if !slices.Equal(got, wantCycles) {
			t.Errorf("%v: %v, want %v", key, got, wantCycles)
		}
	}

	m.lockbench = func(context.Context, string) (calibrationSample, error) {
		return calibrationSample{}, fmt.Errorf("lockbench failed")
	}
	if _, err := runCalibration(t.Context(), steps, m, io.Discard); err == nil || err.Error() != "lockbench failed" {
		t.Errorf("a failed measurement: %v, want its error", err)
	}
}

func TestCalibrateSpread(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want spread
	}{
		{nil, spread{}},
		{[]float64{7}, spread{7, 7, 7}},
		{[]float64{300, 100, 200}, spread{200, 100, 300}},
		{[]float64{4, 1, 3, 2}, spread{2.5, 1, 4}},
	} {
		if got := spreadOf(tc.in); got != tc.want {
			t.Errorf("spreadOf(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// fakeBenchmark writes a redis-benchmark that answers each call with the
// next of rps (its p50 is the call's number, its p99 twice that) and
// logs its arguments, one call a line, to the file it returns.
func fakeBenchmark(t *testing.T, rps []string) (binary, log string) {
	t.Helper()
	dir := t.TempDir()
	binary, log = filepath.Join(dir, "redis-benchmark"), filepath.Join(dir, "calls")
	script := fmt.Sprintf(`#!/bin/sh
echo "$*" >> %[1]s
n=$(wc -l < %[1]s)
set -- %[2]s
shift $((n - 1))
echo '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"'
echo "\"fake\",\"$1\",\"0\",\"0\",\"$n\",\"0\",\"$((2 * n))\",\"0\""
`, log, strings.Join(rps, " "))
	if err := os.WriteFile(binary, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return binary, log
}

// Three pairs' redis-benchmark runs through the real measurement, on a
// fake binary: each pair's cycles/s is 1 / (1/SET rps + 1/DEL rps), and
// the summary has their median and range.
func TestCalibrateFakeBenchmarkMedians(t *testing.T) {
	// pairs: SET 300 DEL 600 → 200; SET 100 DEL 100 → 50; SET 1000 DEL 1000 → 500.
	binary, log := fakeBenchmark(t, []string{"300", "600", "100", "100", "1000", "1000"})
	o := Options{Connections: 8, Requests: 1000}
	var samples []calibrationSample
	for range 3 {
		s, err := measureBenchmark(t.Context(), binary, "127.0.0.1:1", o, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, s)
	}
	sum := summarizeSide(samples)
	if want := (spread{200, 50, 500}); sum.cycles != want {
		t.Errorf("cycles/s %+v, want %+v", sum.cycles, want)
	}
	// p50s of SET are calls 1, 3, 5 (ms), of DEL 2, 4, 6; p99s twice that.
	if sum.setP50 != 3000 || sum.delP50 != 4000 || sum.setP99 != 6000 || sum.delP99 != 8000 {
		t.Errorf("latency medians SET %v/%v DEL %v/%v µs, want 3000/6000 and 4000/8000", sum.setP50, sum.setP99, sum.delP50, sum.delP99)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d calls of redis-benchmark, want 6:\n%s", len(lines), calls)
	}
	for i, line := range lines {
		command := "SET lb:__rand_int__ x NX PX 10000"
		if i%2 == 1 {
			command = "DEL lb:__rand_int__"
		}
		if want := "-h 127.0.0.1 -p 1 -c 8 -n 1000 --csv -r 1000000 " + command; line != want {
			t.Errorf("call %d: %q, want %q", i+1, line, want)
		}
	}
}

// calibrationFixture is a summary of three pairs: rueidis meets every
// target, go-redis spends cpuGoRedis µs per cycle against a bare loop's 10.
// Each pair's ratio is the medians', give or take 0.02.
func calibrationFixture(cpuGoRedis float64, benchmark bool) Summary {
	side := func(cycles, cpu float64) sideSummary {
		return sideSummary{cycles: spread{cycles, cycles - 10, cycles + 10}, cpuUS: spread{cpu, cpu - 1, cpu + 1},
			setP50: 300, setP99: 900, delP50: 300, delP99: 900}
	}
	library := func(name string, bare, lockbench sideSummary) librarySummary {
		ratio := func(r float64) spread { return spread{r, r - 0.02, r + 0.02} }
		return librarySummary{library: name, bare: bare, lockbench: lockbench,
			cyclesRatio: ratio(lockbench.cycles.median / bare.cycles.median), cpuRatio: ratio(lockbench.cpuUS.median / bare.cpuUS.median),
			benchmarkRatio: ratio(lockbench.cycles.median / 30000)}
	}
	sum := Summary{pairs: 3, conditions: Conditions{Cores: 2, LoadStart: 0.5, LoadEnd: 3.25, ServerVersion: "7.0.15"}, libraries: []librarySummary{
		library("rueidis", side(50000, 8), side(47500, 9)),
		library("go-redis", side(30000, 10), side(27000, cpuGoRedis)),
	}}
	if benchmark {
		b := side(30000, 4)
		sum.benchmark = &b
	}
	return sum
}

// The verdicts come from the medians: each target says meets or does not
// meet, and the last line counts what was not met.
func TestCalibrateVerdicts(t *testing.T) {
	render := func(sum Summary, missing string) string {
		var out bytes.Buffer
		sum.connections, sum.missing = 50, missing
		if err := sum.Write(&out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}

	out := render(calibrationFixture(12, true), "")
	for _, want := range []string{
		"medians of 3 pairs",
		"measured on 2 cores, load average 0.50 at the start and 3.25 at the end, redis 7.0.15, 3 pairs",
		"rueidis: 1.58× redis-benchmark's cycles/s (median; pairs 1.56–1.60×), target ≥ 1.00×: meets target",
		"go-redis: 0.90× redis-benchmark's cycles/s (median; pairs 0.88–0.92×), target ≥ 0.80×: meets target",
		"rueidis: lockbench's cycles/s 0.95× the bare loop's (median; pairs 0.93–0.97×), target ≥ 0.90×: meets target",
		"rueidis: lockbench's CPU per cycle 1.12× the bare loop's (median; pairs 1.10–1.15×), target ≤ 1.25×: meets target",
		// The median meets its target, though one pair did not: meets.
		"go-redis: lockbench's cycles/s 0.90× the bare loop's (median; pairs 0.88–0.92×), target ≥ 0.90×: meets target",
		"go-redis: lockbench's CPU per cycle 1.20× the bare loop's (median; pairs 1.18–1.22×), target ≤ 1.25×: meets target",
		"redis-benchmark: 30000 cycles/s (29990–30010), 4.0µs of its own CPU per cycle",
		"calibrate: meets all 6 targets (by the medians of 3 pairs)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rows := calibrationTable(t, out)
	if got := rows["go-redis"]; len(got) != 6 || got[0] != "30000 (29990–30010)" || got[2] != "0.90 (0.88–0.92)" || got[3] != "10.0µs (9.0µs–11.0µs)" || got[5] != "1.20 (1.18–1.22)" {
		t.Errorf("go-redis overhead row %q", got)
	}
	if got := rows["bare loop rueidis"]; len(got) != 6 || got[0] != "50000" || got[1] != "-" || got[5] != "1.67" {
		t.Errorf("bare loop rueidis row %q: want its median, no latency, its ratio to redis-benchmark", got)
	}

	out = render(calibrationFixture(13, true), "")
	for _, want := range []string{
		"go-redis: lockbench's CPU per cycle 1.30× the bare loop's (median; pairs 1.28–1.32×), target ≤ 1.25×: above target, does not meet",
		"calibrate: does not meet 1 of 6 targets (by the medians of 3 pairs: go-redis CPU / bare)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out = render(calibrationFixture(12, false), "redis-benchmark not installed")
	for _, want := range []string{"calibrate: meets all 4 targets", "not checked without it", "not installed"} {
		if !strings.Contains(out, want) {
			t.Errorf("without redis-benchmark, output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "× redis-benchmark's cycles/s") {
		t.Errorf("without redis-benchmark, a target against it:\n%s", out)
	}
}

// lockbench against its bare loop is the median of the pairs' ratios, each
// pair's legs run back to back, not the ratio of the medians, which a
// change of the machine's load between pairs skews: here the third pair
// ran on a busier machine, lockbench slower in it than the bare loop had
// been, and the ratio of the medians (60/80) would read 0.75.
func TestCalibratePairRatios(t *testing.T) {
	sample := func(cycles float64, cpuUS time.Duration) calibrationSample {
		return calibrationSample{cyclesPerS: cycles, cpuPerCycle: cpuUS * time.Microsecond}
	}
	samples := map[seriesKey][]calibrationSample{
		{sideBare, "rueidis"}:      {sample(100, 10), sample(50, 20), sample(80, 12)},
		{sideLockbench, "rueidis"}: {sample(95, 11), sample(46, 23), sample(60, 12)},
	}
	l := summarize(samples, []string{"rueidis"}, false).libraries[0]
	near := func(got spread, median, lo, hi float64) bool {
		return math.Abs(got.median-median) < 1e-9 && math.Abs(got.min-lo) < 1e-9 && math.Abs(got.max-hi) < 1e-9
	}
	if got := l.cyclesRatio; !near(got, 0.92, 0.75, 0.95) {
		t.Errorf("cycles/s ratio %+v, want the median 0.92 of 0.95, 0.92, 0.75", got)
	}
	if got := l.cpuRatio; !near(got, 1.1, 1, 1.15) {
		t.Errorf("CPU ratio %+v, want the median 1.10 of 1.10, 1.15, 1.00", got)
	}
	if targets := bareTargets(l); !targets[0].met() || !targets[1].met() {
		t.Errorf("targets %+v: the pairs' medians meet both", targets)
	}
}
