package calibrate

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// measureBenchmark runs redis-benchmark once per command of the cycle and
// combines the two into one sample; its CPU is redis-benchmark's own.
func measureBenchmark(ctx context.Context, path, addr string, o Options, stderr io.Writer) (calibrationSample, error) {
	var (
		results [2]benchmarkResult
		cpu     time.Duration
		name    = filepath.Base(path) // redis-benchmark, valkey-benchmark
	)
	for i, command := range [][]string{
		{"SET", "lb:__rand_int__", "x", "NX", "PX", strconv.FormatInt(calibrateTTL.Milliseconds(), 10)},
		{"DEL", "lb:__rand_int__"},
	} {
		args, err := benchmarkArgs(addr, o.Connections, o.Requests, command)
		if err != nil {
			return calibrationSample{}, fmt.Errorf("calibrate: %w", err)
		}
		fmt.Fprintf(stderr, "lockbench: calibrate: %s %s\n", name, strings.Join(args, " "))
		var out, errOut bytes.Buffer
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return calibrationSample{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
			}
			return calibrationSample{}, fmt.Errorf("calibrate: %s %s: %w: %s", name, command[0], err, strings.TrimSpace(errOut.String()))
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		parsed, err := parseBenchmarkCSV(out.Bytes())
		if err != nil {
			return calibrationSample{}, fmt.Errorf("calibrate: %s %s: %w", name, command[0], err)
		}
		if len(parsed) != 1 {
			return calibrationSample{}, fmt.Errorf("calibrate: %s %s: %d results, want 1", name, command[0], len(parsed))
		}
		results[i] = parsed[0]
	}
	set, del := results[0], results[1]
	return calibrationSample{
		cyclesPerS: cycleRate(set.RPS, del.RPS), cpuPerCycle: cpu / time.Duration(o.Requests),
		setP50: set.P50MS * 1000, setP99: set.P99MS * 1000,
		delP50: del.P50MS * 1000, delP99: del.P99MS * 1000,
	}, nil
}

// benchmarkArgs are redis-benchmark's arguments to send command over
// connections connections, requests times, to the server at addr (host:port).
func benchmarkArgs(addr string, connections, requests int, command []string) ([]string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("redis-server address %q: %w", addr, err)
	}
	args := []string{"-h", host, "-p", port, "-c", strconv.Itoa(connections), "-n", strconv.Itoa(requests),
		"--csv", "-r", strconv.Itoa(benchmarkKeyspace)}
	return append(args, command...), nil
}

// benchmarkResult is one line of redis-benchmark's --csv output.
type benchmarkResult struct {
	Test  string
	RPS   float64
	P50MS float64
	P99MS float64
}

// benchmarkColumns are the CSV columns parseBenchmarkCSV needs, by header
// name (redis-benchmark 7 has also avg, min, p95 and max latency).
var benchmarkColumns = []string{"test", "rps", "p50_latency_ms", "p99_latency_ms"}

// parseBenchmarkCSV parses the output of redis-benchmark --csv: a header
// line, then one line per test. Columns are found by name; a repeated
// header (one per run of a test) is skipped.
func parseBenchmarkCSV(data []byte) ([]benchmarkResult, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	records, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark CSV: %w", err)
	}
	if len(records) == 0 {
		return nil, errors.New("redis-benchmark CSV: empty output")
	}
	index := map[string]int{}
	for i, name := range records[0] {
		index[name] = i
	}
	for _, name := range benchmarkColumns {
		if _, ok := index[name]; !ok {
			return nil, fmt.Errorf("redis-benchmark CSV: no %q column in header %q", name, strings.Join(records[0], ","))
		}
	}
	var out []benchmarkResult
	for line, rec := range records[1:] {
		if len(rec) != len(records[0]) {
			return nil, fmt.Errorf("redis-benchmark CSV line %d: %d fields, header has %d", line+2, len(rec), len(records[0]))
		}
		if rec[index["test"]] == "test" {
			continue // the header again
		}
		var nums [3]float64
		for j, name := range benchmarkColumns[1:] {
			v, err := strconv.ParseFloat(rec[index[name]], 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("redis-benchmark CSV line %d: %s %q is not a finite number ≥ 0", line+2, name, rec[index[name]])
			}
			nums[j] = v
		}
		out = append(out, benchmarkResult{Test: rec[index["test"]], RPS: nums[0], P50MS: nums[1], P99MS: nums[2]})
	}
	if len(out) == 0 {
		return nil, errors.New("redis-benchmark CSV: no results after the header")
	}
	return out, nil
}

// cycleRate is the rate of cycles of one SET then one DEL, sequential on
// each connection, from the rates of each command alone: a cycle takes the
// time of one of each, 1/setPerS + 1/delPerS. Zero when either is not
// positive.
func cycleRate(setPerS, delPerS float64) float64 {
	if setPerS <= 0 || delPerS <= 0 {
		return 0
	}
	return 1 / (1/setPerS + 1/delPerS)
}
