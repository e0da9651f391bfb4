package main

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// buildBinary is the lockbench binary the tests of whole processes share,
// built once (builtBinary).
func buildBinary(t *testing.T) string {
	t.Helper()
	bin, err := builtBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// A signal in the middle of a run stops it within 2 seconds, prints and
// saves what was measured marked as interrupted, and leaves no redis-server
// behind.
func TestSignalStopsRun(t *testing.T) {
	topotest.Faulted(t)
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.json")
			page := filepath.Join(filepath.Dir(out), "run.html")
			cmd := exec.Command(bin, "run", "--topology", "local", "--variants", "lua-release,watchdog",
				"--clients", "8", "--duration", "30s", "--warmup", "0", "--out", out, "--report", page)
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			addr := waitForCell(t, stderr)
			time.Sleep(500 * time.Millisecond)
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("lockbench did not stop within 5s of the signal")
			}
			if took := time.Since(sent); took > 2*time.Second {
				t.Errorf("stopping took %v, want under 2s", took)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
				t.Errorf("exit %v, want status %d", err, exitInterrupted)
			}
			if !strings.Contains(stdout.String(), "INTERRUPTED") || !strings.Contains(stdout.String(), "lua-release") {
				t.Errorf("stdout lacks the interrupted table:\n%s", stdout.String())
			}
			rec, err := record.Load(out)
			if err != nil {
				t.Fatalf("record: %v", err)
			}
			if !rec.Interrupted || len(rec.Cells) != 1 || rec.Cells[0].Acquisitions == 0 {
				t.Errorf("record: interrupted %v, %d cells", rec.Interrupted, len(rec.Cells))
			}
			if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), "INTERRUPTED") || !strings.Contains(string(html), "<svg") {
				t.Errorf("--report of the interrupted run: %v, %d bytes, want its page marked INTERRUPTED with charts", err, len(html))
			}
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
				t.Errorf("redis-server at %s still answers after lockbench exited", addr)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*.tmp-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

var topologyLine = regexp.MustCompile(`topology local:single at master=redis://(127\.0\.0\.1:\d+)`)

// waitForCell reads stderr until the first cell starts and returns the
// address of the redis-server lockbench started.
func waitForCell(t *testing.T, stderr interface{ Read([]byte) (int, error) }) string {
	t.Helper()
	lines := make(chan string)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	var addr string
	deadline := time.After(15 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("lockbench exited before its first cell")
			}
			if m := topologyLine.FindStringSubmatch(line); m != nil {
				addr = m[1]
			}
			if strings.Contains(line, "[1/") && addr != "" {
				go func() {
					for range lines { // keep draining
					}
				}()
				return addr
			}
		case <-deadline:
			t.Fatal("no cell started within 15s")
		}
	}
}
