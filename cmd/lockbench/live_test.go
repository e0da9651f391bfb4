package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/workloads"
)

// lockedBuffer is a buffer a run writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var (
	metricsOn    = regexp.MustCompile(`lockbench: metrics on http://(\S+)/metrics`)
	acquisitions = regexp.MustCompile(`(?m)^lockbench_acquisitions_total\{clients="4",variant="lua-release"\} (\d+)$`)
)

// scrapeAcquisitions returns lua-release's acquisitions_total, -1 when the
// endpoint does not list it yet.
func scrapeAcquisitions(t *testing.T, addr string) int64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := acquisitions.FindSubmatch(body)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// TestMetricsDuringRun scrapes --metrics-addr twice during a real run and
// finds lua-release's acquisitions rising; the port is closed afterwards.
func TestMetricsDuringRun(t *testing.T) {
	ep := topotest.Endpoint(t)
	var stdout bytes.Buffer
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"run", "--target", "redis://" + ep.Addr, "--variants", "lua-release", "--clients", "4",
			"--duration", "3s", "--warmup", "0", "--metrics-addr", "127.0.0.1:0", "--out", filepath.Join(t.TempDir(), "run.json")}, &stdout, &stderr)
	}()
	var addr string
	for deadline := time.Now().Add(5 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := metricsOn.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no metrics address on stderr: %q", stderr.String())
	}
	first := int64(-1)
	for deadline := time.Now().Add(3 * time.Second); first <= 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		first = scrapeAcquisitions(t, addr)
	}
	time.Sleep(500 * time.Millisecond)
	second := scrapeAcquisitions(t, addr)
	if first <= 0 || second <= first {
		t.Errorf("lockbench_acquisitions_total of lua-release: %d then %d, want rising", first, second)
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the metrics port %s is still open after the run", addr)
	}
}

// TestMetricsAddrInUse fails before anything starts: one line naming the
// flag, exit status 2, no record.
func TestMetricsAddrInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	out := filepath.Join(t.TempDir(), "never.json")
	for _, cmd := range []string{"run", "sweep"} {
		began := time.Now()
		stdout, stderr, status := runCLI(t, cmd, "--variants", "lua-release", "--duration", "1s", "--metrics-addr", busy.Addr().String(), "--out", out)
		if status != exitUsage {
			t.Errorf("%s: exit status %d, want %d (stderr %q)", cmd, status, exitUsage, stderr)
		}
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "--metrics-addr") ||
			!strings.Contains(lines[0], busy.Addr().String()) {
			t.Errorf("%s: stderr %q, want one line naming --metrics-addr and the address", cmd, stderr)
		}
		if stdout != "" {
			t.Errorf("%s: stdout %q", cmd, stdout)
		}
		if took := time.Since(began); took > time.Second {
			t.Errorf("%s: took %v to fail", cmd, took)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a record was written", cmd)
		}
	}
}

// TestProgressLines: stderr that is not a terminal gets a plain progress
// line every interval; --quiet none; the per-cell lines stay either way.
func TestProgressLines(t *testing.T) {
	ep := topotest.Endpoint(t)
	args := []string{"run", "--target", "redis://" + ep.Addr, "--variants", "lua-release", "--clients", "2", "--duration", "1200ms",
		"--warmup", "0", "--progress-interval", "300ms", "--out", filepath.Join(t.TempDir(), "run.json")}
	progressLine := regexp.MustCompile(`(?m)^lockbench: 0:0\d elapsed, 0:0\d left · \[1/1\] lua-release, 2 clients · \d+ acq/s · acquire p99 \S+ · overlaps 0$`)
	for _, quiet := range []bool{false, true} {
		a := args
		if quiet {
			a = append(a, "--quiet")
		}
		_, stderr, status := runCLI(t, a...)
		if status != exitOK {
			t.Fatalf("quiet %v: status %d: %s", quiet, status, stderr)
		}
		if !strings.Contains(stderr, "lockbench: [1/1] lua-release, 2 clients\n") {
			t.Errorf("quiet %v: no cell line in %q", quiet, stderr)
		}
		if strings.ContainsAny(stderr, "\r\x1b") {
			t.Errorf("quiet %v: terminal control characters in %q", quiet, stderr)
		}
		lines := progressLine.FindAllString(stderr, -1)
		switch {
		case quiet && strings.Contains(stderr, "elapsed"):
			t.Errorf("--quiet printed progress: %q", stderr)
		case !quiet && len(lines) == 0:
			t.Errorf("no plain progress line in %q", stderr)
		}
	}
}

// TestProgressCell: every field progress shows is filled from the
// runner's cell, with the value of the runner's field of the same name.
func TestProgressCell(t *testing.T) {
	from := runner.CellStart{Index: 2, Total: 7, Variant: "lua-release", Clients: 16, Repetition: 3, Repeat: 4, Live: &workloads.Live{}}
	got := reflect.ValueOf(progressCell(from))
	src := reflect.ValueOf(from)
	for i := range got.NumField() {
		name := got.Type().Field(i).Name
		f, s := got.Field(i), src.FieldByName(name)
		switch {
		case !s.IsValid():
			t.Errorf("progress.Cell.%s has no runner.CellStart field to come from", name)
		case f.IsZero():
			t.Errorf("progress.Cell.%s is not filled (runner's %v)", name, s.Interface())
		case !reflect.DeepEqual(f.Interface(), s.Interface()):
			t.Errorf("progress.Cell.%s = %v, runner's %v", name, f.Interface(), s.Interface())
		}
	}
}
