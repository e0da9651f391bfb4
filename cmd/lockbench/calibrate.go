package main

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
	"strconv"
	"strings"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// The traffic calibrate offers: an uncontended lock cycle per connection,
// SET key token NX PX 10000 then DEL key.
const (
	calibrateVariant = "set-nx-ex"
	calibrateTTL     = 10 * time.Second
	// benchmarkKeyspace is redis-benchmark's -r: __rand_int__ ranges over
	// this many key names, so that its SETs rarely find a key already set.
	benchmarkKeyspace = 1000000
)

// bothClients is the --client value that calibrates every client library.
const bothClients = "both"

// calibrateTargets are the fraction of redis-benchmark's cycle throughput
// each client library should reach for lockbench not to be the bottleneck.
var calibrateTargets = map[string]float64{"rueidis": 1.0, "go-redis": 0.8}

// The targets against the bare loop, for every client library: lockbench
// should reach this fraction of the bare loop's cycles/s and spend at
// most this multiple of its CPU per cycle.
const (
	bareThroughputTarget = 0.9
	bareCPUTarget        = 1.25
)

// calibrateOptions are the flags of lockbench calibrate.
type calibrateOptions struct {
	// connections is the number of connections on each side. Default 50.
	connections int
	// requests is what redis-benchmark sends per command. Default 200000.
	requests int
	// duration is the measured time of each lockbench run and bare loop.
	// Default 5s.
	duration time.Duration
	// warmup runs before each lockbench run and bare loop. Default 1s.
	warmup time.Duration
	// pairs is how many times redis-benchmark and lockbench take turns.
	// Default 3.
	pairs int
	// client is rueidis, go-redis or both. Default both.
	client string
	// benchmark is the redis-benchmark binary, looked up on PATH. Default
	// redis-benchmark; tests point it elsewhere.
	benchmark string
}

func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := calibrateOptions{benchmark: "redis-benchmark"}
	fs := newFlagSet("calibrate", stderr)
	fs.IntVar(&o.connections, "connections", 50, "`N` connections of redis-benchmark, and as many clients of lockbench")
	fs.IntVar(&o.requests, "requests", 200000, "`N` requests redis-benchmark sends per command (SET, then DEL)")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "measured time of each lockbench run and bare loop")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "warm-up before each lockbench run and bare loop, not measured")
	fs.IntVar(&o.pairs, "pairs", 3, "`N` turns of redis-benchmark, then lockbench; the figures are their medians")
	fs.StringVar(&o.client, "client", bothClients, "client `LIBRARY` of lockbench: "+strings.Join(clients.Names, ", ")+" or "+bothClients)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	libraries, err := o.check()
	if err != nil {
		return err
	}
	return calibrate(ctx, o, libraries, stdout, stderr)
}

// check validates the options and returns the client libraries to run.
// Every error names its flag and what it accepts.
func (o calibrateOptions) check() ([]string, error) {
	switch {
	case o.connections < 1:
		return nil, usagef("--connections: must be at least 1 (got %d)", o.connections)
	case o.requests < 1:
		return nil, usagef("--requests: must be at least 1 (got %d)", o.requests)
	case o.duration <= 0:
		return nil, usagef("--duration: must be a positive duration such as 5s or 500ms (got %v)", o.duration)
	case o.warmup < 0:
		return nil, usagef("--warmup: must be a duration of 0 or more such as 1s or 0 (got %v)", o.warmup)
	case o.pairs < 1:
		return nil, usagef("--pairs: must be at least 1 (got %d)", o.pairs)
	case o.client == bothClients:
		return clients.Names, nil
	}
	if clients.Check(o.client) != nil {
		return nil, usagef("--client: %q is not a client library (accepted: %s, %s)", o.client, strings.Join(clients.Names, ", "), bothClients)
	}
	return []string{o.client}, nil
}

// calibrate starts one redis-server and offers it the same traffic through
// redis-benchmark, then through each library's bare loop and lockbench,
// o.pairs times in turn, and prints the medians and the verdicts. The
// server is stopped on every way out.
func calibrate(ctx context.Context, o calibrateOptions, libraries []string, stdout, stderr io.Writer) (err error) {
	server, err := topologies.StartLocal(ctx, topologies.Spec{Name: "local"})
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	defer func() {
		if cerr := server.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("calibrate: stop redis-server: %w", cerr))
		}
	}()
	access := server.Access()
	addr := access.Endpoints[0].Addr
	fmt.Fprintf(stderr, "lockbench: calibrate on redis-server at %s (up in %.2fs)\n", addr, server.StartupTime().Seconds())

	var missing, path string
	if p, lookErr := exec.LookPath(o.benchmark); lookErr != nil {
		missing = fmt.Sprintf("%s not installed (apt-get install -y redis-tools, or brew install redis); lockbench's figures alone, no ratios to it", o.benchmark)
	} else {
		path = p
	}
	m, err := newMeasurers(ctx, access, path, o, libraries, stderr)
	if err != nil {
		return err
	}
	defer m.close()
	samples, err := runCalibration(ctx, calibrationSteps(o.pairs, libraries, path != ""), m, stderr)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
	case err != nil:
		return err
	}
	return renderCalibrate(stdout, summarize(samples, libraries, path != ""), o, missing)
}

// newMeasurers returns the measurements of a calibrate run against the
// server at access: redis-benchmark at path ("" for none), and per
// library a bare loop on a client of its own, sized as a run's, and a
// lockbench run.
func newMeasurers(ctx context.Context, access topologies.Access, path string, o calibrateOptions, libraries []string, stderr io.Writer) (*measurers, error) {
	addr := access.Endpoints[0].Addr
	m := &measurers{bareConns: map[string]clients.Client{}}
	for _, lib := range libraries {
		conns, err := clients.Connect(ctx, access, clients.Options{Library: lib, PoolSize: runner.PoolSize(o.connections)})
		if err != nil {
			m.close()
			return nil, fmt.Errorf("calibrate: %s: %w", lib, err)
		}
		m.bareConns[lib] = conns[0]
	}
	m.benchmark = func(ctx context.Context) (calibrationSample, error) {
		s, err := measureBenchmark(ctx, path, addr, o, stderr)
		if err != nil {
			return s, err
		}
		// Its SETs leave keys behind until they expire, which would cost
		// the server time in the next turn: this server is calibrate's own.
		if _, err := m.bareConns[libraries[0]].Do(ctx, variants.Bare("FLUSHDB")); err != nil {
			return s, fmt.Errorf("calibrate: FLUSHDB after redis-benchmark: %w", err)
		}
		return s, nil
	}
	m.bare = func(ctx context.Context, lib string) (calibrationSample, error) {
		fmt.Fprintf(stderr, "lockbench: calibrate: bare loop %s, %d clients, %v + %v warm-up\n", lib, o.connections, o.duration, o.warmup)
		return measureBare(ctx, m.bareConns[lib], lib, o)
	}
	m.lockbench = func(ctx context.Context, lib string) (calibrationSample, error) {
		fmt.Fprintf(stderr, "lockbench: calibrate: lockbench %s, %d clients, %v + %v warm-up\n", lib, o.connections, o.duration, o.warmup)
		return measureLockbench(ctx, addr, lib, o)
	}
	return m, nil
}

// measureBenchmark runs redis-benchmark once per command of the cycle and
// combines the two into one sample; its CPU is redis-benchmark's own.
func measureBenchmark(ctx context.Context, path, addr string, o calibrateOptions, stderr io.Writer) (calibrationSample, error) {
	var (
		results [2]benchmarkResult
		cpu     time.Duration
	)
	for i, command := range [][]string{
		{"SET", "lb:__rand_int__", "x", "NX", "PX", strconv.FormatInt(calibrateTTL.Milliseconds(), 10)},
		{"DEL", "lb:__rand_int__"},
	} {
		args, err := benchmarkArgs(addr, o.connections, o.requests, command)
		if err != nil {
			return calibrationSample{}, fmt.Errorf("calibrate: %w", err)
		}
		fmt.Fprintf(stderr, "lockbench: calibrate: redis-benchmark %s\n", strings.Join(args, " "))
		var out, errOut bytes.Buffer
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return calibrationSample{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
			}
			return calibrationSample{}, fmt.Errorf("calibrate: redis-benchmark %s: %w: %s", command[0], err, strings.TrimSpace(errOut.String()))
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		parsed, err := parseBenchmarkCSV(out.Bytes())
		if err != nil {
			return calibrationSample{}, fmt.Errorf("calibrate: redis-benchmark %s: %w", command[0], err)
		}
		if len(parsed) != 1 {
			return calibrationSample{}, fmt.Errorf("calibrate: redis-benchmark %s: %d results, want 1", command[0], len(parsed))
		}
		results[i] = parsed[0]
	}
	set, del := results[0], results[1]
	return calibrationSample{
		cyclesPerS: cycleRate(set.RPS, del.RPS), cpuPerCycle: cpu / time.Duration(o.requests),
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
