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

	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/results"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/workloads"
)

// The traffic calibrate offers: an uncontended lock cycle per connection,
// SET key token NX PX 10000 then DEL key.
const (
	calibrateVariant = "set-nx-ex"
	calibrateTTL     = 10 * time.Second
	calibrateWarmup  = time.Second
	// benchmarkKeyspace is redis-benchmark's -r: __rand_int__ ranges over
	// this many key names, so that its SETs rarely find a key already set.
	benchmarkKeyspace = 1000000
)

// bothClients is the --client value that calibrates every client library.
const bothClients = "both"

// calibrateTargets are the fraction of redis-benchmark's cycle throughput
// each client library should reach for lockbench not to be the bottleneck.
var calibrateTargets = map[string]float64{"rueidis": 1.0, "go-redis": 0.8}

// calibrateOptions are the flags of lockbench calibrate.
type calibrateOptions struct {
	// connections is the number of connections on each side. Default 50.
	connections int
	// requests is what redis-benchmark sends per command. Default 200000.
	requests int
	// duration is the measured time of each lockbench run. Default 5s.
	duration time.Duration
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
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "measured time of each lockbench run (after a 1s warm-up)")
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
	case o.client == bothClients:
		return clients.Names, nil
	}
	if clients.Check(o.client) != nil {
		return nil, usagef("--client: %q is not a client library (accepted: %s, %s)", o.client, strings.Join(clients.Names, ", "), bothClients)
	}
	return []string{o.client}, nil
}

// calibrationRow is one row of calibrate's table. Latencies are in
// microseconds.
type calibrationRow struct {
	name string
	// library is the client library of a lockbench row; "" for
	// redis-benchmark.
	library        string
	cyclesPerS     float64
	setP50, setP99 float64
	delP50, delP99 float64
}

// calibrate starts one redis-server, offers it the same traffic through
// lockbench and redis-benchmark, and prints both. The server is stopped on
// every way out.
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
	addr := server.Access().Endpoints[0].Addr
	fmt.Fprintf(stderr, "lockbench: calibrate on redis-server at %s (up in %.2fs)\n", addr, server.StartupTime().Seconds())

	// lockbench goes first: redis-benchmark leaves its SETs' keys behind
	// until they expire, and their expiry would cost the server time.
	var rows []calibrationRow
	for _, lib := range libraries {
		fmt.Fprintf(stderr, "lockbench: calibrate: lockbench %s, %d clients, %v + %v warm-up\n", lib, o.connections, o.duration, calibrateWarmup)
		row, err := measureLockbench(ctx, addr, lib, o)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}

	var missing string
	path, lookErr := exec.LookPath(o.benchmark)
	if lookErr != nil {
		missing = fmt.Sprintf("%s not installed (apt-get install -y redis-tools, or brew install redis); lockbench's figures alone, no ratios", o.benchmark)
	} else {
		row, err := measureBenchmark(ctx, path, addr, o, stderr)
		if err != nil {
			return err
		}
		rows = append([]calibrationRow{row}, rows...)
	}
	return renderCalibration(stdout, rows, o.connections, missing)
}

// measureLockbench runs the lock cycle through lockbench's runner with
// library against the server at addr.
func measureLockbench(ctx context.Context, addr, library string, o calibrateOptions) (calibrationRow, error) {
	p := plan.Plan{
		Variants: []string{calibrateVariant},
		Clients:  []int{o.connections},
		Client:   library,
		Topology: topologies.Spec{Targets: []string{"redis://" + addr}},
		Workload: workloads.Spec{KeyPerClient: true, Hold: workloads.Fixed(0), Think: workloads.Fixed(0),
			Duration: o.duration, Warmup: calibrateWarmup},
		TTL: calibrateTTL,
	}
	rec, err := runner.Run(ctx, p, runner.Options{})
	switch {
	case ctx.Err() != nil:
		return calibrationRow{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
	case err != nil:
		return calibrationRow{}, fmt.Errorf("calibrate: lockbench %s: %w", library, err)
	case len(rec.Cells) != 1:
		return calibrationRow{}, fmt.Errorf("calibrate: lockbench %s: %d cells, want 1", library, len(rec.Cells))
	}
	c := rec.Cells[0]
	switch {
	case c.Error != "":
		return calibrationRow{}, fmt.Errorf("calibrate: lockbench %s: %s", library, c.Error)
	case c.Errors > 0 || c.Timeouts > 0 || c.Acquisitions == 0:
		return calibrationRow{}, fmt.Errorf("calibrate: lockbench %s: %d acquisitions, %d errors, %d timeouts; the figures would mislead",
			library, c.Acquisitions, c.Errors, c.Timeouts)
	}
	return calibrationRow{
		name: "lockbench " + library, library: library, cyclesPerS: c.ThroughputPerS,
		setP50: c.AcquireLatencyUS.P50, setP99: c.AcquireLatencyUS.P99,
		delP50: c.ReleaseLatencyUS.P50, delP99: c.ReleaseLatencyUS.P99,
	}, nil
}

// measureBenchmark runs redis-benchmark once per command of the cycle and
// combines the two into one row.
func measureBenchmark(ctx context.Context, path, addr string, o calibrateOptions, stderr io.Writer) (calibrationRow, error) {
	var results [2]benchmarkResult
	for i, command := range [][]string{
		{"SET", "lb:__rand_int__", "x", "NX", "PX", strconv.FormatInt(calibrateTTL.Milliseconds(), 10)},
		{"DEL", "lb:__rand_int__"},
	} {
		args, err := benchmarkArgs(addr, o.connections, o.requests, command)
		if err != nil {
			return calibrationRow{}, fmt.Errorf("calibrate: %w", err)
		}
		fmt.Fprintf(stderr, "lockbench: calibrate: redis-benchmark %s\n", strings.Join(args, " "))
		var out, errOut bytes.Buffer
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return calibrationRow{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
			}
			return calibrationRow{}, fmt.Errorf("calibrate: redis-benchmark %s: %w: %s", command[0], err, strings.TrimSpace(errOut.String()))
		}
		parsed, err := parseBenchmarkCSV(out.Bytes())
		if err != nil {
			return calibrationRow{}, fmt.Errorf("calibrate: redis-benchmark %s: %w", command[0], err)
		}
		if len(parsed) != 1 {
			return calibrationRow{}, fmt.Errorf("calibrate: redis-benchmark %s: %d results, want 1", command[0], len(parsed))
		}
		results[i] = parsed[0]
	}
	set, del := results[0], results[1]
	return calibrationRow{
		name: "redis-benchmark", cyclesPerS: cycleRate(set.RPS, del.RPS),
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

// throughputRatio is lockbench's cycles/s over redis-benchmark's; zero when
// the reference is not positive.
func throughputRatio(lockbench, reference float64) float64 {
	if reference <= 0 {
		return 0
	}
	return lockbench / reference
}

// targetLine says whether library reaches its target at ratio.
func targetLine(library string, ratio float64) string {
	target, ok := calibrateTargets[library]
	if !ok {
		return fmt.Sprintf("%s: %.2f× redis-benchmark's cycles/s (no target)", library, ratio)
	}
	verdict := "meets target"
	if ratio < target {
		verdict = "below target"
	}
	return fmt.Sprintf("%s: %.2f× redis-benchmark's cycles/s, target ≥ %.2f×: %s", library, ratio, target, verdict)
}

// renderCalibration writes the table, the notes, and a target line per
// client library. missing, when not empty, says why redis-benchmark's row
// is absent.
func renderCalibration(w io.Writer, rows []calibrationRow, connections int, missing string) error {
	var reference float64
	for _, r := range rows {
		if r.library == "" {
			reference = r.cyclesPerS
		}
	}
	t := results.TextTable(w, tw.CellConfig{Alignment: tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight}, Global: tw.AlignRight}})
	t.Header([]string{"", "cycles/s", "SET p50", "SET p99", "DEL p50", "DEL p99", "× redis-benchmark"})
	var body [][]string
	for _, r := range rows {
		ratio := "-"
		if reference > 0 {
			ratio = strconv.FormatFloat(throughputRatio(r.cyclesPerS, reference), 'f', 2, 64)
		}
		body = append(body, []string{r.name, strconv.FormatFloat(r.cyclesPerS, 'f', 0, 64),
			results.FormatMicros(r.setP50), results.FormatMicros(r.setP99), results.FormatMicros(r.delP50), results.FormatMicros(r.delP99), ratio})
	}
	if err := t.Bulk(body); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	lines := []string{fmt.Sprintf("one redis-server, %d connections; a cycle is SET key token NX PX %d then DEL key, a key per connection",
		connections, calibrateTTL.Milliseconds())}
	for _, r := range rows {
		if r.library == "rueidis" {
			lines = append(lines, "rueidis pipelines concurrent commands over shared connections (auto-pipelining); redis-benchmark (-P 1) and go-redis send one at a time per connection")
		}
	}
	if missing != "" {
		lines = append(lines, missing)
	} else {
		lines = append(lines, "redis-benchmark runs SET and DEL apart (random keys); its cycles/s is 1 / (1/SET rps + 1/DEL rps)")
		for _, r := range rows {
			if r.library != "" {
				lines = append(lines, targetLine(r.library, throughputRatio(r.cyclesPerS, reference)))
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
