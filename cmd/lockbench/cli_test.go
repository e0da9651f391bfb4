package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// runCLI runs the command in-process and returns its output and exit status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	status = exitStatus(err, &errOut)
	return out.String(), errOut.String(), status
}

func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "never.json")
	for _, tc := range []struct {
		name string
		args []string
		want []string // all must appear in the one line on stderr
	}{
		{"unknown variant", []string{"run", "--variants", "luarelease"}, []string{"--variants", `"luarelease"`, "known:", "lua-release"}},
		{"unknown client", []string{"run", "--client", "jedis"}, []string{"--client", "rueidis", "go-redis"}},
		{"bad hold", []string{"run", "--hold", "5x"}, []string{"--hold", `"5x"`, "exp:2ms"}},
		{"negative hold", []string{"run", "--hold", "-2ms"}, []string{"--hold"}},
		{"bad think", []string{"run", "--think", "uniform:5ms-1ms"}, []string{"--think"}},
		{"negative duration", []string{"run", "--duration", "-1s"}, []string{"--duration", "positive"}},
		{"malformed duration", []string{"run", "--duration", "ten"}, []string{"--duration"}},
		{"zero ttl", []string{"run", "--ttl", "0"}, []string{"--ttl", "positive"}},
		{"negative warmup", []string{"run", "--warmup", "-1s"}, []string{"--warmup"}},
		{"zero clients", []string{"run", "--clients", "0"}, []string{"--clients", "at least 1"}},
		{"clients not a number", []string{"run", "--clients", "8,x"}, []string{"--clients"}},
		{"zero keys", []string{"run", "--keys", "0"}, []string{"--keys", "at least 1"}},
		{"bad retry", []string{"run", "--retry", "wait"}, []string{"--retry", "exp:1ms-100ms"}},
		{"bad format", []string{"run", "--format", "xml"}, []string{"--format", "markdown"}},
		{"bad topology", []string{"run", "--topology", "mars"}, []string{"--topology", "local"}},
		{"URL scheme", []string{"run", "--target", "http://127.0.0.1:6379"}, []string{"--target", "redis://"}},
		{"URL port", []string{"run", "--target", "redis://127.0.0.1:port"}, []string{"--target", "port"}},
		{"URL secret", []string{"run", "--target", "redis://u:hunter2@127.0.0.1/x"}, []string{"--target"}},
		{"URL password", []string{"run", "--target", "redis://u:hunter2@127.0.0.1:6379"}, []string{"--target", "password", "LOCKBENCH_REDIS_PASSWORD"}},
		{"password file missing", []string{"run", "--password-file", "/nonexistent/pw"}, []string{"--password-file", "no such file"}},
		{"unreachable target", []string{"run", "--target", "redis://" + closedPort(t), "--duration", "1s"}, []string{"unreachable"}},
		{"zero limit", []string{"run", "--limit", "0"}, []string{"--limit", "at least 1"}},
		{"limit on a lock", []string{"run", "--limit", "5", "--variants", "lua-release"}, []string{"--limit", "lua-release is a lock", "sem-fair"}},
		{"bad skew", []string{"run", "--clock-skew", "uniform:2s..-2s"}, []string{"--clock-skew", "uniform:-500ms..500ms"}},
		{"skew not a duration", []string{"run", "--clock-skew", "fast"}, []string{"--clock-skew"}},
		{"jump without sign", []string{"run", "--clock-jump", "2s@5s"}, []string{"--clock-jump", "+2s@5s"}},
		{"jump without time", []string{"run", "--clock-jump", "+2s"}, []string{"--clock-jump"}},
		{"unknown topology", []string{"run", "--topology", "local:mesh"}, []string{"--topology", "local:mesh", "local:cluster"}},
		{"unknown parameter", []string{"run", "--topology", "local:cluster?shards=3"}, []string{"--topology", "shards", "masters"}},
		{"zero nodes", []string{"run", "--topology", "local:redlock?nodes=0"}, []string{"--topology", "nodes", "from 1"}},
		{"variant on wrong shape", []string{"run", "--topology", "local:redlock", "--variants", "lua-release"}, []string{"--variants", "lua-release", "independent"}},
		{"variant on wrong client", []string{"run", "--client", "go-redis", "--variants", "rueidislock"}, []string{"--client", "rueidislock", "runs on rueidis"}},
		{"cluster seed not host:port", []string{"run", "--cluster", "seed"}, []string{"--cluster", `"seed"`}},
		{"cluster unreachable", []string{"run", "--cluster", closedPort(t), "--duration", "1s"}, []string{"unreachable", "cluster"}},
		{"sentinel without name", []string{"run", "--sentinel", "127.0.0.1:26379"}, []string{"--sentinel", "--master-name"}},
		{"two kinds of target", []string{"run", "--cluster", "127.0.0.1:7000", "--target", "redis://127.0.0.1:6379"}, []string{"one of"}},
		{"target and local topology", []string{"run", "--topology", "local:cluster", "--target", "redis://127.0.0.1:6379"}, []string{"--topology"}},
		{"topology up of a target", []string{"topology", "up", "cluster"}, []string{"topology up", "local:cluster"}},
		{"topology without action", []string{"topology"}, []string{"topology up"}},
		{"zero rate", []string{"run", "--rate", "0"}, []string{"--rate", "positive", "poisson:5000"}},
		{"negative rate", []string{"run", "--rate", "-5"}, []string{"--rate"}},
		{"rate process", []string{"run", "--rate", "burst:50"}, []string{"--rate", "constant:5000"}},
		{"malformed stages", []string{"run", "--stages", "10s:1000,5000"}, []string{"--stages", "DURATION:RATE"}},
		{"stages with duration", []string{"run", "--stages", "10s:1000", "--duration", "5s"}, []string{"--duration", "--stages"}},
		{"rate with ops", []string{"run", "--rate", "1000", "--ops", "500"}, []string{"--ops", "open loop"}},
		{"topology server", []string{"topology", "up", "local", "--server", "/no/such/server", "--state", "/tmp/lockbench-test-unused.json"}, []string{"--server", "no such server binary"}},
		{"unknown pacing", []string{"run", "--rate", "1000", "--pacing", "busy"}, []string{"--pacing", "sleep or spin"}},
		{"pacing a closed loop", []string{"run", "--pacing", "spin"}, []string{"--pacing", "--rate or --stages"}},
		{"unknown fault kind", []string{"run", "--fault", "at=1s explode node=master"}, []string{"--fault", "explode", "pause, kill"}},
		{"fault after the end", []string{"run", "--fault", "at=20s kill node=master", "--duration", "5s"}, []string{"--fault", "within the measured 5s"}},
		{"fault on no such node", []string{"run", "--fault", "at=1s kill node=primary", "--variants", "lua-release", "--duration", "2s"}, []string{"no node", "primary", "nodes: master"}},
		{"unknown flag", []string{"run", "--colour"}, []string{"--colour"}},
		{"stray argument", []string{"run", "extra"}, []string{`"extra"`}},
		{"unknown command", []string{"bench"}, []string{`"bench"`, "run"}},
		{"variants format", []string{"variants", "--format", "xml"}, []string{"--format"}},
		{"zero repeat", []string{"run", "--repeat", "0"}, []string{"--repeat", "at least 1"}},
		{"unknown fence", []string{"run", "--fence", "ignore"}, []string{"--fence", `"ignore"`, "count", "reject"}},
		{"cpuprofile in no directory", []string{"run", "--out", out, "--cpuprofile", "/nonexistent/dir/cpu.prof"}, []string{"--cpuprofile", "no such file"}},
		{"sweep bad slo", []string{"sweep", "--slo", "acquire.p99<fast"}, []string{"--slo", "acquire.p99<fast", "duration"}},
		{"sweep slo unknown metric", []string{"sweep", "--slo", "latency<5ms"}, []string{"--slo", "unknown metric", "acquire.p99"}},
		{"sweep falling clients", []string{"sweep", "--clients", "8,4"}, []string{"--clients", "rise", "8,4"}},
		{"sweep falling rates", []string{"sweep", "--rates", "2000,1000"}, []string{"--rates", "rising", "1000,2000,4000"}},
		{"sweep rate not a number", []string{"sweep", "--rates", "fast"}, []string{"--rates"}},
		{"sweep max cpu", []string{"sweep", "--max-cpu", "1.5"}, []string{"--max-cpu", "(0, 1]"}},
		{"sweep min gain", []string{"sweep", "--min-gain", "0"}, []string{"--min-gain", "0.05"}},
		{"sweep target rate", []string{"sweep", "--target-rate", "-1"}, []string{"--target-rate"}},
		{"sweep repeat", []string{"sweep", "--repeat", "3"}, []string{"--repeat", "once"}},
		{"sweep check", []string{"sweep", "--check", "overlaps==0"}, []string{"--check", "--slo"}},
		{"sweep rate", []string{"sweep", "--rate", "1000"}, []string{"--rate", "--rates"}},
		{"shard above count", []string{"run", "--run-id", "r1", "--shard", "3/2"}, []string{"--shard", `"3/2"`, "1 <= i <= N"}},
		{"shard zero of zero", []string{"run", "--run-id", "r1", "--shard", "0/0"}, []string{"--shard", `"0/0"`, "i/N"}},
		{"shard zero", []string{"run", "--run-id", "r1", "--shard", "0/3"}, []string{"--shard", `"0/3"`, "1 <= i <= N"}},
		{"shard not a number", []string{"run", "--run-id", "r1", "--shard", "x/2"}, []string{"--shard", `"x/2"`, "1/3"}},
		{"shard without count", []string{"run", "--run-id", "r1", "--shard", "2"}, []string{"--shard", `"2"`, "i/N"}},
		{"shard without run id", []string{"run", "--shard", "1/3"}, []string{"--shard", "--run-id"}},
		{"shard without clients", []string{"run", "--run-id", "r1", "--shard", "3/4", "--clients", "2"}, []string{"--shard 3/4 gets no client of --clients 2"}},
		{"shard without ops", []string{"run", "--run-id", "r1", "--shard", "3/4", "--clients", "8", "--ops", "2"}, []string{"--shard 3/4", "--ops 2"}},
		{"witness not a url", []string{"run", "--witness", "http://127.0.0.1:6379"}, []string{"--witness", "redis://"}},
		{"witness unreachable", []string{"run", "--witness", "redis://" + closedPort(t), "--duration", "1s"}, []string{"--witness", "unreachable"}},
		{"shard wait", []string{"run", "--shard-wait", "0s"}, []string{"--shard-wait", "positive"}},
		{"merge witness without run id", []string{"merge", "--witness", "redis://127.0.0.1:1"}, []string{"--witness", "--run-id"}},
		{"bad run id", []string{"run", "--run-id", "a/b"}, []string{"--run-id", `"a/b"`, "A-Z a-z 0-9"}},
		{"long run id", []string{"run", "--run-id", strings.Repeat("x", 65)}, []string{"--run-id", "1 to 64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			began := time.Now()
			stdout, stderr, status := runCLI(t, append(tc.args, "--out", out)...)
			if tc.name == "unknown command" || tc.name == "variants format" || tc.args[0] == "topology" {
				stdout, stderr, status = runCLI(t, tc.args...)
			}
			if status != exitUsage {
				t.Errorf("exit status %d, want %d (stderr %q)", status, exitUsage, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if tc.name == "unknown command" {
				lines = lines[len(lines)-1:] // after the usage text
			}
			if len(lines) != 1 {
				t.Errorf("stderr has %d lines, want 1: %q", len(lines), stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("stderr %q does not mention %q", lines[0], w)
				}
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr echoes the password: %q", stderr)
			}
			if stdout != "" && tc.name != "unknown command" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if took := time.Since(began); took > 5*time.Second {
				t.Errorf("took %v to fail, want a few seconds at most", took)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a record was written for bad input")
			}
		})
	}
}

func TestVariantsGolden(t *testing.T) {
	stdout, stderr, status := runCLI(t, "variants")
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	golden := filepath.Join("testdata", "variants.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if stdout != string(want) {
		t.Errorf("lockbench variants output changed; run go test ./cmd/lockbench -update if intended.\ngot:\n%s", stdout)
	}
}

// A short real run against a server given by --target: the record is saved
// with the fields the later commands rely on, and the run's keys are gone.
func TestRunAgainstTarget(t *testing.T) {
	ep := topotest.Endpoint(t)
	out := filepath.Join(t.TempDir(), "run.json")
	stdout, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--variants", "lua-release,watchdog",
		"--clients", "2,4", "--duration", "300ms", "--warmup", "0", "--client", "go-redis", "--format", "csv", "--out", out)
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if got := strings.Count(stdout, "\n"); got != 5 {
		t.Errorf("csv has %d lines, want header + 4 cells:\n%s", got, stdout)
	}
	rec, err := record.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(out)
	var generic struct {
		Cells []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"variant", "client", "topology", "clients", "acquisitions", "throughput_per_s", "acquire_latency_us", "violations", "errors", "histograms"} {
		if _, ok := generic.Cells[0][field]; !ok {
			t.Errorf("record cell has no %q field", field)
		}
	}
	for _, c := range rec.Cells {
		if c.Acquisitions == 0 || c.Client != "go-redis" || c.Topology != "target" || c.Histograms.Acquire == "" {
			t.Errorf("cell %s/%d: %d acquisitions, client %q, topology %q", c.Variant, c.Clients, c.Acquisitions, c.Client, c.Topology)
		}
	}
	if len(rec.Config.Topology.Targets) == 0 || rec.Topology.ServerVersion == "" {
		t.Errorf("record does not echo the target and server version: %+v", rec.Topology)
	}
}

// --cpuprofile writes the run's CPU profile, a gzipped pprof protobuf.
func TestRunWritesCPUProfile(t *testing.T) {
	ep := topotest.Endpoint(t)
	dir := t.TempDir()
	profile := filepath.Join(dir, "cpu.prof")
	_, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--variants", "none", "--clients", "2",
		"--duration", "300ms", "--warmup", "0", "--quiet", "--out", filepath.Join(dir, "run.json"), "--cpuprofile", profile)
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	data, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 100 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("--cpuprofile wrote %d bytes, not a gzipped profile", len(data))
	}
}

// An even number of Redlock masters runs, with a warning that it buys no
// fault tolerance.
func TestEvenRedlockWarns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	_, stderr, status := runCLI(t, "run", "--topology", "local:redlock?nodes=2", "--variants", "redlock",
		"--clients", "2", "--duration", "100ms", "--warmup", "0", "--out", out)
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if !strings.Contains(stderr, "warning: 2 independent masters tolerate no more failures than 1") {
		t.Errorf("no warning about the even node count:\n%s", stderr)
	}
}

// Destructive faults are refused on a server lockbench did not start.
func TestFaultRefusedOnExternalServer(t *testing.T) {
	ep := topotest.Endpoint(t)
	_, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--fault", "at=1s kill node=master-1",
		"--variants", "lua-release", "--duration", "2s", "--out", filepath.Join(t.TempDir(), "never.json"))
	if status != exitUsage || !strings.Contains(stderr, "not a node lockbench started") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("status %d, stderr %q; want exit 2 and one line refusing the fault", status, stderr)
	}
}

// --check thresholds decide the exit status: 0 when all hold, 1 when one
// fails (listed on stderr), 2 when one does not parse.
func TestCheckExitStatus(t *testing.T) {
	ep := topotest.Endpoint(t)
	base := []string{"run", "--target", "redis://" + ep.Addr, "--variants", "none,lua-release", "--clients", "4",
		"--duration", "300ms", "--warmup", "0", "--out", filepath.Join(t.TempDir(), "run.json")}
	for _, tc := range []struct {
		checks []string
		status int
		stderr string
	}{
		{[]string{"acquisitions>0", "acquire.p99<10s"}, exitOK, ""},
		{[]string{"overlaps==0"}, exitThresholds, "check failed: none, 4 clients: overlaps==0"},
		{[]string{"overlaps=="}, exitUsage, "--check"},
	} {
		args := slices.Clone(base)
		for _, c := range tc.checks {
			args = append(args, "--check", c)
		}
		_, stderr, status := runCLI(t, args...)
		if status != tc.status || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: status %d, stderr %q; want %d mentioning %q", tc.checks, status, stderr, tc.status, tc.stderr)
		}
	}
}
