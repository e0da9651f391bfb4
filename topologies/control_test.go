package topologies

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// ping sends a raw PING, which every server (miniredis too) accepts. It
// waits at most a second, or until ctx's deadline.
func ping(ctx context.Context, addr string) error {
	deadline := time.Now().Add(time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	d := net.Dialer{Deadline: deadline}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(deadline)
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return errors.New(strings.TrimSpace(line))
	}
	return nil
}

// answers reports whether the node at addr answers PING within d.
func answers(t testing.TB, addr string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	return ping(ctx, addr)
}

func TestController(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:redlock?nodes=2"})
	addr, other := addrOf(t, l, "node-1"), addrOf(t, l, "node-2")
	pid := l.PID("node-1")

	if err := l.Pause("node-1"); err != nil {
		t.Fatalf("Pause: %v", err)
	}
	if err := answers(t, addr, 200*time.Millisecond); err == nil {
		t.Errorf("a paused node answered PING")
	}
	if err := answers(t, other, time.Second); err != nil {
		t.Errorf("the other node, not paused: %v", err)
	}
	if err := l.Resume("node-1"); err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if err := answers(t, addr, time.Second); err != nil {
		t.Errorf("after Resume, PING: %v", err)
	}

	if err := do(t, addr, "SET", "k", "v").Error(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if err := l.Kill("node-1"); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := answers(t, addr, time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("after Kill, PING: %v; want connection refused", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Kill, kill(%d, 0) = %v; want ESRCH", pid, err)
	}
	if err := l.Kill("node-1"); err != nil {
		t.Errorf("Kill of a killed node: %v; want nil", err)
	}
	if err := l.Pause("node-1"); err == nil || errors.Is(err, ErrNoNode) {
		t.Errorf("Pause of a killed node: %v; want an error saying it does not run", err)
	}

	const delay = 150 * time.Millisecond
	began := time.Now()
	if err := l.Restart(t.Context(), "node-1", delay); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if took := time.Since(began); took < delay {
		t.Errorf("Restart took %v; want at least the delay %v", took, delay)
	}
	if got := addrOf(t, l, "node-1"); got != addr {
		t.Errorf("after Restart, node-1 is on %s; want the same %s", got, addr)
	}
	if l.PID("node-1") == pid {
		t.Errorf("after Restart, the same pid %d", pid)
	}
	if err := answers(t, addr, time.Second); err != nil {
		t.Fatalf("after Restart, PING: %v", err)
	}
	if n, err := do(t, addr, "DBSIZE").AsInt64(); err != nil || n != 0 {
		t.Errorf("after Restart, DBSIZE = %d, %v; want an empty dataset", n, err)
	}
	if err := do(t, addr, "GET", "k").Error(); !rueidis.IsRedisNil(err) {
		t.Errorf("after Restart, GET k: %v; want nil", err)
	}

	// A paused node restarts too; a cancelled restart leaves it killed.
	if err := l.Pause("node-1"); err != nil {
		t.Fatalf("Pause: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Restart(ctx, "node-1", time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Restart with a cancelled context: %v; want context.Canceled", err)
	}
	if err := answers(t, addr, time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("after a cancelled Restart, PING: %v; want connection refused", err)
	}
	if err := l.Restart(t.Context(), "node-1", 0); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if err := answers(t, addr, time.Second); err != nil {
		t.Errorf("after Restart, PING: %v", err)
	}
	checkClose(t, l)
}

// TestRestartReplica checks that a restarted replica follows its master
// again, with the master's data.
func TestRestartReplica(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:replicated?replicas=1"})
	if err := do(t, addrOf(t, l, "master"), "SET", "k", "v").Error(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if err := l.Restart(t.Context(), "replica-1", 0); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	eventually(t, "the restarted replica to sync", func() error {
		v, err := do(t, addrOf(t, l, "replica-1"), "GET", "k").ToString()
		if err != nil || v != "v" {
			return errors.New("not yet")
		}
		return nil
	})
}

// TestCloseWhilePaused checks that Close does not hang on a paused node
// and ends it.
func TestCloseWhilePaused(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:replicated?replicas=1"})
	for _, name := range []string{"master", "replica-1"} {
		if err := l.Pause(name); err != nil {
			t.Fatalf("Pause(%s): %v", name, err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		checkClose(t, l)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs on paused nodes")
	}
}

// TestStartFailureKeepsLog checks that a node that does not start leaves
// its log and names it in the error.
func TestStartFailureKeepsLog(t *testing.T) {
	n, err := startNode(testContext(t, 20*time.Second), nodeConfig{extra: []string{"no-such-directive yes"}})
	if err == nil {
		_ = n.stop()
		t.Fatal("startNode with a bad directive started")
	}
	if !errors.Is(err, ErrStart) {
		t.Errorf("error %v; want ErrStart", err)
	}
	logFile := keptLog(t, err)
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("the log: %v", err)
	}
	if !strings.Contains(string(b), "no-such-directive") {
		t.Errorf("the log does not say what went wrong:\n%s", b)
	}
}

// keptLog is the log a failed start's error names, removed with its
// directory when the test ends.
func keptLog(t *testing.T, err error) string {
	t.Helper()
	_, logFile, ok := strings.Cut(err.Error(), "log kept in ")
	if !ok {
		t.Fatalf("error %q does not name the log", err)
	}
	logFile = strings.TrimSuffix(logFile, ")")
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(logFile)) })
	return logFile
}

// FlushScripts empties a node's script cache, so that EVALSHA of a script
// loaded before answers NOSCRIPT; other nodes keep theirs. A server
// lockbench did not start is refused.
func TestFlushScripts(t *testing.T) {
	l := startLocal(t, Spec{Name: "local:redlock?nodes=2"})
	addr, other := addrOf(t, l, "node-1"), addrOf(t, l, "node-2")
	var sha string
	for _, a := range []string{addr, other} {
		var err error
		if sha, err = do(t, a, "SCRIPT", "LOAD", "return 1").ToString(); err != nil {
			t.Fatalf("SCRIPT LOAD: %v", err)
		}
	}
	if err := l.FlushScripts(t.Context(), "node-1"); err != nil {
		t.Fatal(err)
	}
	if err := do(t, addr, "EVALSHA", sha, "0").Error(); err == nil || !strings.Contains(err.Error(), "NOSCRIPT") {
		t.Errorf("EVALSHA on the flushed node: %v, want NOSCRIPT", err)
	}
	if n, err := do(t, other, "EVALSHA", sha, "0").AsInt64(); err != nil || n != 1 {
		t.Errorf("EVALSHA on the other node: %v %v, want 1", n, err)
	}
	if err := l.FlushScripts(t.Context(), "node-9"); !errors.Is(err, ErrNoNode) {
		t.Errorf("an unknown node: %v", err)
	}
	ext := externalControl{e: &External{name: "target", nodes: []Node{{Name: "master"}}}}
	if err := ext.FlushScripts(t.Context(), "master"); !errors.Is(err, ErrNotManaged) {
		t.Errorf("a server lockbench did not start: %v", err)
	}
}
