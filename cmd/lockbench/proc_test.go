package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockbenchProc is a lockbench process a test started, its stderr read
// line by line.
type lockbenchProc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	lines  []string
	seen   chan string // every stderr line, as it comes
	done   chan struct{}
	err    error // Wait's, once done is closed
}

// startLockbench starts bin with args, TMPDIR set to tmp (where its
// redis-servers' directories and its fallback files go).
func startLockbench(t *testing.T, bin, tmp string, args ...string) *lockbenchProc {
	t.Helper()
	p := &lockbenchProc{cmd: exec.Command(bin, args...), seen: make(chan string, 1024), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	p.cmd.Stdout = &p.stdout
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.done })
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, s.Text())
			p.mu.Unlock()
			select {
			case p.seen <- s.Text():
			default:
			}
		}
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p
}

// waitLine waits until a stderr line contains want.
func (p *lockbenchProc) waitLine(t *testing.T, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line := <-p.seen:
			if strings.Contains(line, want) {
				return
			}
		case <-p.done:
			t.Fatalf("lockbench exited before saying %q: %v\n%s", want, p.err, p.stderr())
		case <-deadline:
			t.Fatalf("lockbench did not say %q within %v", want, timeout)
		}
	}
}

// wait waits for the process to exit and returns its status.
func (p *lockbenchProc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("lockbench did not exit within %v", timeout)
	}
	var exit *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &exit):
		return exit.ExitCode()
	}
	t.Fatal(p.err)
	return -1
}

func (p *lockbenchProc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// lastLine is the last line on stderr.
func (p *lockbenchProc) lastLine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lines) == 0 {
		return ""
	}
	return p.lines[len(p.lines)-1]
}

// nodeDirs lists the redis-server directories in tmp.
func nodeDirs(t *testing.T, tmp string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(tmp, "lockbench-redis-*"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
