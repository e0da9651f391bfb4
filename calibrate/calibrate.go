package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/procfs"
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

// BothClients is the Client value that calibrates every client library.
const BothClients = "both"

// ErrBadOptions is wrapped by every error of Options that are not valid;
// the message names the flag of lockbench calibrate and what it accepts.
var ErrBadOptions = errors.New("calibrate: bad options")

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

// Options say what a calibration offers. Zero is not a default: start
// from DefaultOptions, whose values lockbench calibrate's flags show.
type Options struct {
	// Connections is the number of connections on each side. Default 50.
	Connections int
	// Requests is what redis-benchmark sends per command. Default 200000.
	Requests int
	// Duration is the measured time of each lockbench run and bare loop.
	// Default 5s.
	Duration time.Duration
	// Warmup runs before each lockbench run and bare loop; 0 for none.
	// Default 1s.
	Warmup time.Duration
	// Pairs is how many times redis-benchmark and lockbench take turns.
	// Default 3.
	Pairs int
	// Client is rueidis, go-redis or BothClients. Default BothClients.
	Client string
	// Server is the server calibrate starts: redis, valkey or a server
	// binary's path (topologies.ServerBinary). Default redis.
	Server string
	// Benchmark is the redis-benchmark binary, looked up on PATH. Default
	// the server's own (benchmarkOf): valkey-benchmark beside
	// valkey-server, redis-benchmark beside redis-server; tests point it
	// elsewhere.
	Benchmark string
	// Log takes a line per step as the calibration goes. Default none.
	Log io.Writer
}

// DefaultOptions are the options of lockbench calibrate without flags.
func DefaultOptions() Options {
	return Options{Connections: 50, Requests: 200000, Duration: 5 * time.Second, Warmup: time.Second,
		Pairs: 3, Client: BothClients}
}

func badf(format string, args ...any) error { return inputerr.Errorf(ErrBadOptions, format, args...) }

// Libraries validates the options and returns the client libraries to
// run. Every error wraps ErrBadOptions and names its flag and what it
// accepts.
func (o Options) Libraries() ([]string, error) {
	switch {
	case o.Connections < 1:
		return nil, badf("--connections: must be at least 1 (got %d)", o.Connections)
	case o.Requests < 1:
		return nil, badf("--requests: must be at least 1 (got %d)", o.Requests)
	case o.Duration <= 0:
		return nil, badf("--duration: must be a positive duration such as 5s or 500ms (got %v)", o.Duration)
	case o.Warmup < 0:
		return nil, badf("--warmup: must be a duration of 0 or more such as 1s or 0 (got %v)", o.Warmup)
	case o.Pairs < 1:
		return nil, badf("--pairs: must be at least 1 (got %d)", o.Pairs)
	}
	if _, err := topologies.ServerBinary(o.Server); err != nil {
		return nil, badf("--server: %w", err)
	}
	switch {
	case o.Client == BothClients:
		return clients.Names, nil
	}
	if clients.Check(o.Client) != nil {
		return nil, badf("--client: %q is not a client library (accepted: %s, %s)", o.Client, strings.Join(clients.Names, ", "), BothClients)
	}
	return []string{o.Client}, nil
}

// Run starts one redis-server and offers it the same traffic through
// redis-benchmark, then through each library's bare loop and lockbench,
// o.Pairs times in turn, and returns the medians and the verdicts
// (Summary.Write prints them). The server is stopped on every way out.
func Run(ctx context.Context, o Options) (sum Summary, err error) {
	libraries, err := o.Libraries()
	if err != nil {
		return Summary{}, err
	}
	serverPath, _ := topologies.ServerBinary(o.Server) // checked by Libraries
	if o.Benchmark == "" {
		o.Benchmark = benchmarkOf(serverPath)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	server, err := topologies.StartLocal(ctx, topologies.Spec{Name: "local", RedisServer: serverPath})
	if err != nil {
		return Summary{}, fmt.Errorf("calibrate: %w", err)
	}
	defer func() {
		if cerr := server.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("calibrate: stop redis-server: %w", cerr))
		}
	}()
	access := server.Access()
	addr := access.Endpoints[0].Addr
	product, _ := topologies.Product(ctx, access.Endpoints[0])
	conditions := Conditions{Cores: runtime.NumCPU(), LoadStart: loadAverage(), LoadEnd: -1, ServerVersion: product}
	fmt.Fprintf(o.Log, "lockbench: calibrate on %s at %s (up in %.2fs)\n", filepath.Base(serverPath), addr, server.StartupTime().Seconds())

	var missing, path string
	if p, lookErr := exec.LookPath(o.Benchmark); lookErr != nil {
		missing = fmt.Sprintf("%s not installed (%s); lockbench's figures alone, no ratios to it", o.Benchmark, benchmarkInstall(o.Benchmark))
	} else {
		path = p
	}
	m, err := newMeasurers(ctx, access, path, o, libraries)
	if err != nil {
		return Summary{}, err
	}
	defer m.close()
	samples, err := runCalibration(ctx, calibrationSteps(o.Pairs, libraries, path != ""), m, o.Log)
	switch {
	case ctx.Err() != nil:
		return Summary{}, fmt.Errorf("calibrate: interrupted, nothing printed: %w", context.Cause(ctx))
	case err != nil:
		return Summary{}, err
	}
	sum = summarize(samples, libraries, path != "")
	conditions.LoadEnd = loadAverage()
	sum.connections, sum.missing, sum.conditions, sum.benchmarkName = o.Connections, missing, conditions, filepath.Base(o.Benchmark)
	return sum, nil
}

// loadAverage is the machine's load average over the last minute, -1
// where unknown.
func loadAverage() float64 {
	if load, ok := procfs.LoadAverage(); ok {
		return load
	}
	return -1
}

// benchmarkOf is the benchmark of the server binary at path: the
// -benchmark beside its -server (valkey-benchmark beside valkey-server),
// else redis-benchmark from PATH.
func benchmarkOf(path string) string {
	if prefix, ok := strings.CutSuffix(filepath.Base(path), "-server"); ok {
		beside := filepath.Join(filepath.Dir(path), prefix+"-benchmark")
		if _, err := exec.LookPath(beside); err == nil {
			return beside
		}
	}
	return "redis-benchmark"
}

// benchmarkInstall says how to install the benchmark called name.
func benchmarkInstall(name string) string {
	if strings.HasPrefix(filepath.Base(name), "valkey-") {
		return "it comes with Debian's valkey-server: make valkey"
	}
	return "apt-get install -y redis-tools, or brew install redis"
}

// newMeasurers returns the measurements of a calibrate run against the
// server at access: redis-benchmark at path ("" for none), and per
// library a bare loop on a client of its own, sized as a run's, and a
// lockbench run.
func newMeasurers(ctx context.Context, access topologies.Access, path string, o Options, libraries []string) (*measurers, error) {
	addr := access.Endpoints[0].Addr
	m := &measurers{bareConns: map[string]clients.Client{}}
	for _, lib := range libraries {
		conns, err := clients.Connect(ctx, access, clients.Options{Library: lib, PoolSize: runner.PoolSize(o.Connections)})
		if err != nil {
			m.close()
			return nil, fmt.Errorf("calibrate: %s: %w", lib, err)
		}
		m.bareConns[lib] = conns[0]
	}
	m.benchmark = func(ctx context.Context) (calibrationSample, error) {
		s, err := measureBenchmark(ctx, path, addr, o, o.Log)
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
		fmt.Fprintf(o.Log, "lockbench: calibrate: bare loop %s, %d clients, %v + %v warm-up\n", lib, o.Connections, o.Duration, o.Warmup)
		return measureBare(ctx, m.bareConns[lib], lib, o)
	}
	m.lockbench = func(ctx context.Context, lib string) (calibrationSample, error) {
		fmt.Fprintf(o.Log, "lockbench: calibrate: lockbench %s, %d clients, %v + %v warm-up\n", lib, o.Connections, o.Duration, o.Warmup)
		return measureLockbench(ctx, addr, lib, o)
	}
	return m, nil
}
