package topologies

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lockbench/lockbench/clockshim"
)

// ErrNoClockShim is clockshim.ErrNoShim: clock faults on nodes that run
// without the clock shim.
var ErrNoClockShim = clockshim.ErrNoShim

// ClockShimEnv is clockshim.Env: where the clock shim is, or "off".
const ClockShimEnv = clockshim.Env

// Clock faults. Every node of a Local topology runs with the clock shim
// (package clockshim) preloaded when there is one: it adds an offset to
// the wall clock the node reads (gettimeofday, time, clock_gettime of
// CLOCK_REALTIME), which Redis takes its key expiry from. The offset is a
// file in the node's directory (clockshim.Offset) that ClockJump changes.
// The monotonic clock is left alone, as a wall-clock step leaves it alone
// on a real machine.

// clockVerifySlack is how far a node's clock may read from the one it was
// moved to: Redis answers from a time it caches when a command comes in,
// and every 100 ms.
const clockVerifySlack = 250 * time.Millisecond

// initClock sets the node up to run under shim ("": without), with a zero
// offset in its directory.
func (n *node) initClock(shim string) error {
	if shim == "" {
		return nil
	}
	o, err := clockshim.NewOffset(shim, filepath.Join(n.dir, "clock-offset"))
	if err != nil {
		return err
	}
	n.clock = o
	return nil
}

// clockEnv is the environment of the node's process: lockbench's own, with
// the shim preloaded; nil, which inherits lockbench's, without the shim.
func (n *node) clockEnv() []string {
	if n.clock == nil {
		return nil
	}
	return n.clock.Environ(nil)
}

// shimLoaded reports whether the node's running process has the shim
// mapped. A node that does not run has nothing to check.
func (n *node) shimLoaded() error {
	p, ok := n.running()
	if !ok {
		return nil
	}
	if err := n.clock.Loaded(p.cmd.Process.Pid); err != nil {
		return fmt.Errorf("%w (see %s)", err, n.logFile)
	}
	return nil
}

// ClockJump moves the wall clock of the node called name by `by`
// (negative: back) from where earlier jumps left it, as the node's
// redis-server sees it: keys whose expiry time the new clock has passed
// are gone on their next access (or the next active-expire cycle), and
// PTTL counts from the new clock. The clock stays moved, also across a
// Restart, until the topology is closed. A killed node's clock moves too
// and shows when it is restarted; a running one's is checked with INFO
// server (not while it is paused). It fails with ErrNoClockShim when the
// nodes run without the clock shim.
func (l *Local) ClockJump(ctx context.Context, name string, by time.Duration) error {
	n, err := l.node(name)
	if err != nil {
		return err
	}
	if err := l.clockReady(n); err != nil {
		return fmt.Errorf("clock jump %s: %w", name, err)
	}
	n.proc.clockMu.Lock()
	defer n.proc.clockMu.Unlock()
	offset, err := n.proc.clock.Add(by)
	if err != nil {
		return fmt.Errorf("clock jump %s: %w", name, err)
	}
	if !n.proc.usable() {
		return nil
	}
	if err := verifyClock(ctx, n.Endpoint.Addr, offset); err != nil {
		return fmt.Errorf("clock jump %s: %w", name, err)
	}
	return nil
}

// clockReady reports whether n's clock can be moved.
func (l *Local) clockReady(n *localNode) error {
	if l.clockErr != nil {
		return l.clockErr
	}
	return n.proc.shimLoaded()
}

// verifyClock checks that the node at addr reads its clock offset by
// offset from lockbench's: INFO's server_time_usec, which sentinels answer
// too (they have no TIME).
func verifyClock(ctx context.Context, addr string, offset time.Duration) error {
	a, err := dialAdmin(addr)
	if err != nil {
		return err
	}
	defer a.Close()
	before := time.Now()
	info, err := a.Info(ctx, "server")
	after := time.Now()
	if err != nil {
		return err
	}
	field, err := info.Field("server", "server_time_usec")
	if err != nil {
		return fmt.Errorf("INFO server on %s: %w", addr, err)
	}
	usec, err := strconv.ParseInt(field, 10, 64)
	if err != nil {
		return fmt.Errorf("INFO server on %s: server_time_usec: %w", addr, err)
	}
	read := time.UnixMicro(usec)
	lo, hi := before.Add(offset-clockVerifySlack), after.Add(offset+clockVerifySlack)
	if read.Before(lo) || read.After(hi) {
		return fmt.Errorf("%w: %s reads %s, %v from lockbench's clock, not %v", ErrNoClockShim, addr,
			read.UTC().Format(time.RFC3339Nano), read.Sub(before).Round(time.Millisecond), offset)
	}
	return nil
}

// ClockReady reports whether the clocks of t's nodes can be moved
// (Controller.ClockJump): nil, or why not — ErrNotManaged for servers
// lockbench did not start, ErrNoClockShim (saying what to install) when
// its nodes run without the clock shim.
func ClockReady(t Topology) error {
	l, ok := t.(*Local)
	if !ok {
		if _, err := ControllerOf(t); err != nil {
			return err
		}
		return fmt.Errorf("%w: %s has no clock control", ErrNotManaged, t.Name())
	}
	if l.clockErr != nil {
		return l.clockErr
	}
	l.mu.Lock()
	nodes := append([]*localNode(nil), l.nodes...)
	l.mu.Unlock()
	for _, n := range nodes {
		if err := l.clockReady(n); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
	}
	return nil
}
