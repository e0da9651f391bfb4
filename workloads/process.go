package workloads

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
)

// ProcessHolder is a Lock whose client lives in a process apart — a lock
// driver's (package driver, wired by the runner) — which several clients
// may share, as the threads of one service instance do. The workload
// checks for it on each client's Lock:
//
//   - holder faults act on the process, as they would on a service
//     instance: holder-pause stops it (PauseProcess, SIGSTOP), and its
//     every client with it, until for= is over (ResumeProcess, SIGCONT);
//     holder-crash kills it (KillProcess, SIGKILL): every lock it held is
//     orphaned, and its every client counts as crashed and stops. The
//     fault's event names the process.
//   - the tries a library makes inside one acquire are out of lockbench's
//     sight: such a client counts as waiting for its key (the oracle's
//     unavailability) from the moment it asks for it.
type ProcessHolder interface {
	// ProcessName names the process ("driver-2 pid 12345"); the clients
	// of one process give the same name.
	ProcessName() string
	PauseProcess() error
	ResumeProcess() error
	KillProcess() error
}

// process is a process that clients of the cell share (ProcessHolder).
type process struct {
	name    string
	holder  ProcessHolder // its first client's lock
	clients []*client
	// frozenUntil is the end of a pause (Unix nanoseconds), 0 for none;
	// killed is closed once the process was killed.
	frozenUntil atomic.Int64
	killOnce    sync.Once
	killed      chan struct{}
}

// processOf is the process of lock, a ProcessHolder's, for client c: the
// one its name names, made at its first client.
func (d *driver) processOf(h ProcessHolder, c *client) *process {
	if d.processes == nil {
		d.processes = map[string]*process{}
	}
	p := d.processes[h.ProcessName()]
	if p == nil {
		p = &process{name: h.ProcessName(), holder: h, killed: make(chan struct{})}
		d.processes[p.name] = p
	}
	p.clients = append(p.clients, c)
	return p
}

// wasKilled reports whether c's process was killed (false for a client in
// lockbench's own process).
func (c *client) wasKilled() bool {
	if c.proc == nil {
		return false
	}
	select {
	case <-c.proc.killed:
		return true
	default:
		return false
	}
}

// killedChan is closed when c's process is killed; nil (never) for a
// client in lockbench's own process.
func (c *client) killedChan() <-chan struct{} {
	if c.proc == nil {
		return nil
	}
	return c.proc.killed
}

// faultNode names what a client fault acts on: c's process, or c.
func (c *client) faultNode() string {
	if c.proc != nil {
		return c.proc.name
	}
	return "client-" + strconv.Itoa(c.index)
}

// crash kills c, which holds a lock: c alone, or its process with every
// client of it. The clients of a killed process are counted as crashed
// here, at once (c in its stripe's recorder rec); each stops when it
// notices, counting nothing more.
func (c *client) crash(rec *metrics.Recorder, at time.Time) string {
	c.crashed.Store(true)
	rec.Add(at, metrics.Crashed)
	p := c.proc
	if p == nil {
		return ""
	}
	var err error
	p.killOnce.Do(func() {
		for _, other := range p.clients {
			if other != c {
				other.crashed.Store(true)
				c.d.recorder(other.stripe, at).Add(at, metrics.Crashed)
			}
		}
		close(p.killed)
		err = p.holder.KillProcess()
	})
	return errorNote(err)
}

// pause freezes c, which holds a lock, for f.For: c alone (it and its
// renewals, at their steps), or its process with every client of it
// (SIGSTOP, then SIGCONT). It returns what went wrong with the process's
// signals, "" when nothing did.
func (c *client) pause(ctx context.Context, f *clientFault) string {
	until := time.Now().Add(f.For).UnixNano()
	c.frozenUntil.Store(until)
	p := c.proc
	if p == nil {
		c.sleep(ctx, f.For, nil)
		return ""
	}
	p.frozenUntil.Store(until)
	err := p.holder.PauseProcess()
	c.sleep(ctx, f.For, nil)
	if rerr := p.holder.ResumeProcess(); err == nil {
		err = rerr
	}
	return errorNote(err)
}

// waitThaw waits, for a client of a paused process, until the pause is
// over: the process's threads (here the client's critical section) do not
// run while it is stopped. It reports whether it waited.
func (c *client) waitThaw(ctx context.Context) bool {
	if c.proc == nil {
		return false
	}
	until := c.proc.frozenUntil.Load()
	if until == 0 {
		return false
	}
	left := time.Until(time.Unix(0, until))
	if left <= 0 {
		return false
	}
	c.sleep(ctx, left, nil)
	return true
}

// leaveKilled ends the critical section of a client whose process was
// killed while it held lock k: it left the resource when it died
// (abandoned, its lease orphaned) and never releases. It was counted as
// crashed by the client that killed the process.
func (c *client) leaveKilled(k int, acq history.ID, entry oracle.Entry) {
	at := c.d.now()
	exit := c.invoke(k, history.Exit, acq)
	c.d.oracle.AbandonAt(entry, at)
	c.complete(exit, history.Fail, 0)
}

// askWaits starts c's wait for key k at began when its lock's library
// retries out of sight (a ProcessHolder): from the moment it asks.
func (c *client) askWaits(k int, began time.Time) {
	if c.proc != nil && !c.waiting {
		c.waiting = true
		c.d.oracle.WaitingAt(k, began)
	}
}

// errorNote is what an action's event adds for err: nothing when nil.
func errorNote(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}
