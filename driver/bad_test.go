package driver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// A command that does not exist, or is not executable, is a bad driver,
// said in one line with what the manifest says it needs.
func TestCommandCannotRun(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, command := range map[string][]string{
		"missing path":    {"./no-such-driver"},
		"missing on PATH": {"lockbench-no-such-program"},
		"not executable":  {plain},
		"a directory":     {dir},
	} {
		t.Run(name, func(t *testing.T) {
			m := driver.Manifest{Name: "ghost", Command: command, Dir: dir, Requires: "apt-get install -y ghost"}
			_, err := driver.Start(context.Background(), m, driver.Config{Prefix: prefix})
			if !errors.Is(err, driver.ErrBadDriver) {
				t.Fatalf("%v: want a bad driver", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, "ghost") || !strings.Contains(msg, command[0]) ||
				!strings.Contains(msg, "apt-get install -y ghost") {
				t.Errorf("%q: want one line naming the driver, its command and what it needs", msg)
			}
		})
	}
}

// A driver that exits during init: the error names it, says it exited
// during init, and carries the last lines of its stderr.
func TestExitsDuringInit(t *testing.T) {
	m := drivertest.Bad(t, "exit-init")
	_, err := driver.Start(context.Background(), m, config(t))
	var exit *driver.ExitError
	if !errors.Is(err, driver.ErrExited) || !errors.As(err, &exit) {
		t.Fatalf("%v: want an exit", err)
	}
	msg := err.Error()
	for _, want := range []string{"bad-exit-init", "during init", "exit status 3", "ImportError: no module named redis", "loading the lock library"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
}

// A driver that breaks the protocol mid-run fails its process: the
// request fails naming the offending line, and so does every later one.
func TestProtocolViolations(t *testing.T) {
	for mode, want := range map[string][]string{
		"garbage":      {"not a JSON object", "hello from baddriver, this is not JSON"},
		"unknown-id":   {"in_reply_to 1001 names no request in flight", `"in_reply_to":1001`},
		"wrong-client": {"a reply for client 102, which has no request in flight", `"client":102`},
	} {
		t.Run(mode, func(t *testing.T) {
			p := start(t, drivertest.Bad(t, mode), config(t))
			ctx := context.Background()
			_, err := p.Client(2).Acquire(ctx, key("k"))
			var pe *driver.ProtocolError
			if !errors.Is(err, driver.ErrProtocol) || !errors.As(err, &pe) || !errors.Is(err, driver.ErrIndefinite) {
				t.Fatalf("%v: want a protocol violation, indefinite for the request in flight", err)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			if !errors.Is(p.Err(), driver.ErrProtocol) {
				t.Errorf("the process's error: %v", p.Err())
			}
			_, later := p.Client(3).Acquire(ctx, key("other"))
			if !errors.Is(later, driver.ErrProtocol) || !errors.Is(later, driver.ErrDefinite) || later.Error() != err.Error() {
				t.Errorf("a later request: %v, want the same violation, definite (never sent)", later)
			}
		})
	}
}

// A driver that stops answering: each request fails at its deadline (the
// acquire timeout plus the margin) with an indefinite error; its client
// cannot send another before the reply comes, other clients can.
func TestStopsAnswering(t *testing.T) {
	cfg := config(t)
	cfg.AcquireTimeout, cfg.Margin = 200*time.Millisecond, 300*time.Millisecond
	p := start(t, drivertest.Bad(t, "silent"), cfg)
	ctx := context.Background()
	began := time.Now()
	_, err := p.Client(0).Acquire(ctx, key("k"))
	if !errors.Is(err, driver.ErrNoReply) || !errors.Is(err, driver.ErrIndefinite) {
		t.Fatalf("%v: want no reply, indefinite", err)
	}
	if waited := time.Since(began); waited < 500*time.Millisecond {
		t.Errorf("gave up after %v, before the deadline of 500ms", waited)
	}
	if _, err := p.Client(0).Release(ctx, key("k"), "t"); !errors.Is(err, driver.ErrClientBusy) || !errors.Is(err, driver.ErrDefinite) {
		t.Errorf("the same client again: %v, want client busy (definite)", err)
	}
	if _, err := p.Client(1).Acquire(ctx, key("k")); !errors.Is(err, driver.ErrNoReply) {
		t.Errorf("another client: %v, want no reply", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Client(2).Acquire(cancelled, key("k")); !errors.Is(err, context.Canceled) || !errors.Is(err, driver.ErrIndefinite) {
		t.Errorf("with its context ended: %v, want canceled, indefinite", err)
	}
	if p.Err() != nil {
		t.Errorf("a slow driver is not a failed one: %v", p.Err())
	}
}

// What a driver left unanswered is counted when it is closed, by
// operation: the requests of a silent driver, also those whose callers
// stopped waiting; none of a driver that answered everything.
func TestUnansweredAtClose(t *testing.T) {
	cfg := config(t)
	silent := start(t, drivertest.Bad(t, "silent"), cfg)
	for client := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the request is sent, then given up at once
		if _, err := silent.Client(client).Acquire(ctx, key("k")); !errors.Is(err, context.Canceled) {
			t.Fatalf("client %d: %v, want canceled", client, err)
		}
	}
	if got := silent.Unanswered(); got != nil {
		t.Errorf("before Close: %v, want none counted", got)
	}
	_ = silent.Close()
	if got, answered := silent.Unanswered(), silent.Answered(); got["acquire"] != 3 || len(got) != 1 || answered != 0 {
		t.Errorf("silent driver closed: unanswered %v, answered %d; want 3 acquires unanswered, none answered", got, answered)
	}

	answering := start(t, drivertest.Bad(t, "noexclusion"), cfg)
	lease, err := answering.Client(0).Acquire(context.Background(), key("k"))
	if err == nil {
		_, err = lease.Release(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = answering.Close()
	if got, answered := answering.Unanswered(), answering.Answered(); got != nil || answered != 2 {
		t.Errorf("answering driver closed: unanswered %v, answered %d; want none, 2", got, answered)
	}
}

// A driver that stops reading its stdin: once the pipe is full, the
// requests that wait to be written fail at their deadline, and the
// process at its blocked write's (indefinite: a line may be half
// written); a later request fails at once, definite.
func TestStopsReading(t *testing.T) {
	cfg := config(t)
	cfg.AcquireTimeout, cfg.Margin, cfg.Grace = 200*time.Millisecond, 300*time.Millisecond, 100*time.Millisecond
	p := start(t, drivertest.Bad(t, "deaf"), cfg)
	const clients = 64 // of 4 KB keys: 256 KB, more than a pipe holds
	errs := make(chan error, clients)
	for c := range clients {
		go func() {
			_, err := p.Client(c).Acquire(context.Background(), key(fmt.Sprint(c, strings.Repeat("x", 4<<10))))
			errs <- err
		}()
	}
	for range clients {
		if err := <-errs; !errors.Is(err, driver.ErrNoReply) || !errors.Is(err, driver.ErrIndefinite) {
			t.Errorf("a request to a driver that does not read: %v, want no reply, indefinite", err)
		}
	}
	// The process fails at its write's own deadline, set when the write
	// began, after the first requests were sent: on a loaded machine the
	// requests' deadlines can pass before it (CI: Err was nil here).
	failed := time.Now().Add(10 * time.Second)
	for p.Err() == nil && time.Now().Before(failed) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "stopped reading its stdin") {
		t.Errorf("the process's failure: %v, want: stopped reading its stdin", err)
	}
	if _, err := p.Client(clients).Acquire(context.Background(), key("k")); !errors.Is(err, driver.ErrDefinite) {
		t.Errorf("a request after the failure: %v, want definite", err)
	}
}

// The broken driver of driver check's test takes a lock that is held:
// the package reports what it is told.
func TestNoExclusionDriver(t *testing.T) {
	p := start(t, drivertest.Bad(t, "noexclusion"), config(t))
	ctx := context.Background()
	if _, err := p.Client(0).Acquire(ctx, key("k")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client(1).Acquire(ctx, key("k")); err != nil {
		t.Errorf("the broken driver refused a held lock: %v", err)
	}
}

// Close leaves nothing of a driver's group: not a child it started, not
// a driver that stays after its stdin closed (SIGTERM), not one that
// ignores SIGTERM (SIGKILL).
func TestCloseLeavesNothing(t *testing.T) {
	for _, c := range []struct {
		mode    string
		lingers bool
	}{{"noexclusion", false}, {"linger", true}, {"stubborn", true}} {
		t.Run(c.mode, func(t *testing.T) {
			cfg := config(t)
			cfg.Grace = 300 * time.Millisecond
			p, err := driver.Start(context.Background(), drivertest.Bad(t, c.mode, "child"), cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Close()
			if lingered := errors.Is(err, driver.ErrLingered); lingered != c.lingers {
				t.Errorf("close: %v; want lingered %v", err, c.lingers)
			}
			noneLeft(t, p.PID())
		})
	}
}

// A driver killed (a holder's crash) fails its requests with its exit,
// and leaves no child behind.
func TestSignalKill(t *testing.T) {
	topotest.Faulted(t)
	p := start(t, drivertest.Bad(t, "noexclusion", "child"), config(t))
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for p.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := p.Client(0).Acquire(context.Background(), key("k")); !errors.Is(err, driver.ErrExited) || !strings.Contains(err.Error(), "killed") {
		t.Errorf("acquire on a killed driver: %v, want its exit (killed)", err)
	}
	noneLeft(t, p.PID())
}

// A paused driver answers nothing until resumed; then it answers.
func TestSignalPause(t *testing.T) {
	topotest.Faulted(t)
	cfg := config(t)
	cfg.AcquireTimeout, cfg.Margin = 100*time.Millisecond, 400*time.Millisecond
	p := start(t, drivertest.GoLua(t), cfg)
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client(0).Acquire(context.Background(), key("k")); !errors.Is(err, driver.ErrNoReply) {
		t.Errorf("acquire on a paused driver: %v, want no reply", err)
	}
	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// The late acquire_ok is released by the process itself; client 1
	// then gets the lock.
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var lease *driver.Lease
		if lease, err = p.Client(1).Acquire(context.Background(), key("k")); err == nil {
			_, err = lease.Release(context.Background())
			break
		}
	}
	if err != nil && !errors.Is(err, variants.ErrTimeout) {
		t.Errorf("after resume: %v", err)
	} else if err != nil {
		t.Error("the lease acquired while lockbench no longer waited was never released")
	}
}
