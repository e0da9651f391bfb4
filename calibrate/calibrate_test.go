package calibrate

import (
	"bytes"
	"context"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchmarkSample is the output of the two redis-benchmark runs calibrate
// makes (SET, then DEL), captured from redis-benchmark 7.0.15 with -c 50
// -n 200000 --csv -r 1000000.
const benchmarkSample = `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"SET lb:__rand_int__ x NX PX 10000","62932.66","0.416","0.160","0.399","0.503","1.127","4.151"
"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"DEL lb:__rand_int__","60042.03","0.426","0.168","0.415","0.495","0.703","3.567"
`

func TestCalibrateParseCSV(t *testing.T) {
	got, err := parseBenchmarkCSV([]byte(benchmarkSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []benchmarkResult{
		{Test: "SET lb:__rand_int__ x NX PX 10000", RPS: 62932.66, P50MS: 0.399, P99MS: 1.127},
		{Test: "DEL lb:__rand_int__", RPS: 60042.03, P50MS: 0.415, P99MS: 0.703},
	}
	if len(got) != len(want) {
		t.Fatalf("parsed %d results, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestCalibrateParseCSVColumnsByName(t *testing.T) {
	got, err := parseBenchmarkCSV([]byte("\"p99_latency_ms\",\"rps\",\"test\",\"p50_latency_ms\"\n\"2.5\",\"1000\",\"PING\",\"0.5\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (benchmarkResult{Test: "PING", RPS: 1000, P50MS: 0.5, P99MS: 2.5}); len(got) != 1 || got[0] != want {
		t.Errorf("got %+v, want [%+v]", got, want)
	}
}

func TestCalibrateParseCSVErrors(t *testing.T) {
	header := `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"` + "\n"
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"header only", header, "no results"},
		{"Redis 6 header without percentiles", "\"test\",\"rps\"\n\"SET\",\"100\"\n", `"p50_latency_ms"`},
		{"rps not a number", header + `"SET","fast","0.1","0.1","0.1","0.1","0.1","0.1"` + "\n", `rps "fast"`},
		{"negative latency", header + `"SET","100","0.1","0.1","-1","0.1","0.1","0.1"` + "\n", "p50_latency_ms"},
		{"short line", header + `"SET","100"` + "\n", "2 fields"},
		{"not CSV", "\"unterminated\n", "CSV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseBenchmarkCSV([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parseBenchmarkCSV: %v; want an error with %q", err, tc.want)
			}
		})
	}
}

func FuzzCalibrateCSV(f *testing.F) {
	f.Add([]byte(benchmarkSample))
	f.Add([]byte("\"test\",\"rps\",\"p50_latency_ms\",\"p99_latency_ms\"\n\"x\",\"1e3\",\"NaN\",\"1\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		results, err := parseBenchmarkCSV(data)
		if err != nil {
			return
		}
		if len(results) == 0 {
			t.Fatal("no error and no results")
		}
		for _, r := range results {
			for _, v := range []float64{r.RPS, r.P50MS, r.P99MS} {
				if !(v >= 0) || math.IsInf(v, 0) {
					t.Fatalf("figure not finite and ≥ 0 accepted: %+v", r)
				}
			}
		}
	})
}

func TestCalibrateCycleRate(t *testing.T) {
	for _, tc := range []struct {
		set, del, want float64
	}{
		{100, 100, 50},  // a cycle takes both commands' time
		{300, 600, 200}, // 1/300 + 1/600 = 1/200
		{62932.66, 60042.03, 30726.69},
		{0, 100, 0},
		{100, -1, 0},
	} {
		if got := cycleRate(tc.set, tc.del); math.Abs(got-tc.want) > 0.01 {
			t.Errorf("cycleRate(%v, %v) = %v, want %v", tc.set, tc.del, got, tc.want)
		}
	}
}

func TestCalibrateTargetLine(t *testing.T) {
	for _, tc := range []struct {
		library string
		ratio   float64
		want    []string
	}{
		{"rueidis", 1.0, []string{"rueidis: 1.00×", "≥ 1.00×", "meets target"}},
		{"rueidis", 0.97, []string{"0.97×", "below target"}},
		{"go-redis", 0.8, []string{"go-redis: 0.80×", "≥ 0.80×", "meets target"}},
		{"go-redis", 0.79, []string{"0.79×", "below target"}},
	} {
		got := targetLine(tc.library, "redis-benchmark", tc.ratio, spread{})
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("targetLine(%s, %v) = %q; want it to contain %q", tc.library, tc.ratio, got, w)
			}
		}
	}
	if got := throughputRatio(45, 50); got != 0.9 {
		t.Errorf("throughputRatio(45, 50) = %v, want 0.9", got)
	}
	if got := throughputRatio(45, 0); got != 0 {
		t.Errorf("throughputRatio(45, 0) = %v, want 0", got)
	}
}

func TestCalibrateBenchmarkArgs(t *testing.T) {
	got, err := benchmarkArgs("127.0.0.1:40123", 50, 200000, []string{"DEL", "lb:__rand_int__"})
	if err != nil {
		t.Fatal(err)
	}
	want := "-h 127.0.0.1 -p 40123 -c 50 -n 200000 --csv -r 1000000 DEL lb:__rand_int__"
	if strings.Join(got, " ") != want {
		t.Errorf("benchmarkArgs = %q, want %q", strings.Join(got, " "), want)
	}
	if _, err := benchmarkArgs("no-port", 1, 1, nil); err == nil {
		t.Error("benchmarkArgs accepted an address without a port")
	}
}

func TestCalibrateRender(t *testing.T) {
	bench := calibrationRow{name: "redis-benchmark", cyclesPerS: 30000, setP50: 399, setP99: 1127, delP50: 415, delP99: 703}
	fast := calibrationRow{name: "lockbench rueidis", library: "rueidis", cyclesPerS: 33000, setP50: 350, setP99: 900, delP50: 340, delP99: 880}
	slow := calibrationRow{name: "lockbench go-redis", library: "go-redis", cyclesPerS: 15000, setP50: 1500, setP99: 4000, delP50: 1400, delP99: 3900}

	var out bytes.Buffer
	if err := renderCalibration(&out, []calibrationRow{bench, fast, slow}, 50, "", "redis-benchmark"); err != nil {
		t.Fatal(err)
	}
	rows := calibrationTable(t, out.String())
	for name, ratio := range map[string]string{"redis-benchmark": "1.00", "lockbench rueidis": "1.10", "lockbench go-redis": "0.50"} {
		if got := rows[name]; len(got) != 6 || got[5] != ratio {
			t.Errorf("row %s = %q; want 6 columns ending in %s\n%s", name, got, ratio, out.String())
		}
	}
	if got := rows["lockbench go-redis"]; len(got) == 6 && (got[1] != "1.50ms" || got[0] != "15000") {
		t.Errorf("go-redis row %q: want 15000 cycles/s and SET p50 1.50ms", got)
	}
	for _, want := range []string{"rueidis: 1.10×", "meets target", "go-redis: 0.50×", "below target", "1 / (1/SET rps + 1/DEL rps)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if err := renderCalibration(&out, []calibrationRow{fast}, 50, "redis-benchmark not installed", "redis-benchmark"); err != nil {
		t.Fatal(err)
	}
	if got := calibrationTable(t, out.String())["lockbench rueidis"]; len(got) != 6 || got[5] != "-" {
		t.Errorf("without redis-benchmark the ratio is %q, want -", got)
	}
	if s := out.String(); !strings.Contains(s, "not installed") || strings.Contains(s, "target") {
		t.Errorf("without redis-benchmark: want the not-installed line and no target lines:\n%s", s)
	}
}

// needRedisServer fails the test, saying how to install it, when
// redis-server is not on PATH.
func needRedisServer(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatal("this test needs a real redis-server on PATH (apt-get install -y redis-server, or brew install redis)")
	}
}

// calibrationTable returns the rows of calibrate's table by their first
// column, each with the other columns.
func calibrationTable(t *testing.T, out string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows[cells[0]] = cells[1:]
	}
	return rows
}

// checkRow checks that a row's cycles/s and latencies are figures above
// zero.
func checkRow(t *testing.T, name string, row []string) {
	t.Helper()
	if len(row) != 6 {
		t.Errorf("row %s: %q, want 6 columns", name, row)
		return
	}
	if v, err := strconv.ParseFloat(row[0], 64); err != nil || v <= 0 {
		t.Errorf("row %s: cycles/s %q, want a number above 0", name, row[0])
	}
	for i, col := range []string{"SET p50", "SET p99", "DEL p50", "DEL p99"} {
		if cell := row[1+i]; cell == "-" || !(strings.HasSuffix(cell, "s")) {
			t.Errorf("row %s: %s %q, want a latency", name, col, cell)
		}
	}
}

// runCalibrate runs calibrate as o says and returns what it printed and
// logged; an error fails the test.
func runCalibrate(t *testing.T, o Options) (stdout, log string) {
	t.Helper()
	var out, stderr bytes.Buffer
	o.Log = &stderr
	sum, err := Run(t.Context(), o)
	if err == nil {
		err = sum.Write(&out)
	}
	if err != nil {
		t.Fatalf("%v\nstderr: %s\nstdout: %s", err, stderr.String(), out.String())
	}
	return out.String(), stderr.String()
}

// Calibrate end to end: one redis-server, both libraries, and
// redis-benchmark when it is installed.
func TestCalibrateEndToEnd(t *testing.T) {
	needRedisServer(t)
	o := DefaultOptions()
	o.Connections, o.Requests, o.Duration, o.Warmup, o.Pairs = 8, 5000, 500*time.Millisecond, 200*time.Millisecond, 2
	stdout, _ := runCalibrate(t, o)
	rows := calibrationTable(t, stdout)
	for _, name := range []string{"lockbench rueidis", "lockbench go-redis"} {
		checkRow(t, name, rows[name])
	}
	if _, err := exec.LookPath("redis-benchmark"); err != nil {
		if !strings.Contains(stdout, "redis-benchmark not installed") {
			t.Errorf("redis-benchmark is missing, and the output does not say so:\n%s", stdout)
		}
		return
	}
	checkRow(t, "redis-benchmark", rows["redis-benchmark"])
	for _, name := range []string{"lockbench rueidis", "lockbench go-redis"} {
		if row := rows[name]; len(row) == 6 {
			if v, err := strconv.ParseFloat(row[5], 64); err != nil || v <= 0 {
				t.Errorf("row %s: ratio %q, want a number above 0", name, row[5])
			}
		}
	}
	for _, lib := range []string{"rueidis", "go-redis"} {
		if !strings.Contains(stdout, lib+": ") || !strings.Contains(stdout, "target") {
			t.Errorf("no target line for %s:\n%s", lib, stdout)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", stdout)
	}
}

// Without redis-benchmark, calibrate says so in one line and prints
// lockbench's figures alone.
func TestCalibrateWithoutRedisBenchmark(t *testing.T) {
	needRedisServer(t)
	var stdout, stderr bytes.Buffer
	o := Options{Connections: 4, Requests: 1, Duration: 200 * time.Millisecond, Pairs: 1, Client: "rueidis", Benchmark: "redis-benchmark-not-installed-here", Log: &stderr}
	sum, err := Run(context.Background(), o)
	if err == nil {
		err = sum.Write(&stdout)
	}
	if err != nil {
		t.Fatalf("calibrate: %v\nstderr: %s", err, stderr.String())
	}
	rows := calibrationTable(t, stdout.String())
	checkRow(t, "lockbench rueidis", rows["lockbench rueidis"])
	if _, ok := rows["redis-benchmark"]; ok || strings.Count(stdout.String(), "not installed") != 1 {
		t.Errorf("want no redis-benchmark row and one not-installed line:\n%s", stdout.String())
	}
}
