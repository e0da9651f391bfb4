package topologies

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// ErrDestructive: a fault on a server lockbench did not start, which would
// act on every client of that server, not only lockbench's.
var ErrDestructive = errors.New("destructive on a server lockbench did not start")

// TimedPauser pauses a node for a set time, after which it resumes by
// itself.
type TimedPauser interface {
	PauseFor(ctx context.Context, name string, d time.Duration) error
}

// externalControl is the only control lockbench takes of servers it did not
// start, and only when told to (--allow-destructive): it pauses a node for
// a set time with CLIENT PAUSE … ALL — every client of that server waits,
// not only lockbench's — and the server resumes by itself when the time is
// up, even if lockbench dies meanwhile. It never kills, restarts,
// reconfigures or fails over such a server.
type externalControl struct{ e *External }

// DestructiveControl returns the control of t allowed with
// --allow-destructive: t's own when lockbench started it, else timed
// pauses of its nodes.
func DestructiveControl(t Topology) (Controller, error) {
	if e, ok := t.(*External); ok {
		return externalControl{e}, nil
	}
	return ControllerOf(t)
}

// PauseFor pauses node name for d: CLIENT PAUSE d ALL.
func (c externalControl) PauseFor(ctx context.Context, name string, d time.Duration) error {
	i := slices.IndexFunc(c.e.nodes, func(n Node) bool { return n.Name == name })
	if i < 0 {
		return fmt.Errorf("%w %q in %s", ErrNoNode, name, c.e.name)
	}
	a, err := DialNode(ctx, c.e.nodes[i].Endpoint)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.exec(ctx, "CLIENT", "PAUSE", strconv.FormatInt(max(d.Milliseconds(), 1), 10), "ALL")
}

func (c externalControl) refuse(what string) error {
	return fmt.Errorf("%w: %s: lockbench never %s a server it did not start", ErrNotManaged, c.e.name, what)
}

// Pause without a time is refused: the server must resume by itself.
func (c externalControl) Pause(string) error  { return c.refuse("pauses without a time (give for=)") }
func (c externalControl) Resume(string) error { return nil }
func (c externalControl) Kill(string) error   { return c.refuse("kills") }
func (c externalControl) Restart(context.Context, string, time.Duration) error {
	return c.refuse("restarts")
}
func (c externalControl) Promote(context.Context, string) error { return c.refuse("fails over") }
func (c externalControl) ClockJump(context.Context, string, time.Duration) error {
	return c.refuse("moves the clock of")
}
func (c externalControl) FlushScripts(context.Context, string) error {
	return c.refuse("flushes the scripts of")
}
