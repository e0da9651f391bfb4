package variants

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
)

// Conn is the narrow connection to Redis that variants use. Adapters for
// rueidis and go-redis live in package clients.
//
// Replies are decoded to nil (the nil reply), int64, string, or []any of
// those. A server error reply is returned as a *ServerError.
//
// Do and DoMulti keep no part of their commands once they return: a caller
// may reuse a command's Argv for its next command (the variants do, to
// spare an allocation per command).
type Conn interface {
	// Do sends one command and returns its reply.
	Do(ctx context.Context, cmd Command) (any, error)
	// DoMulti sends the commands as one pipeline, written back to back on
	// one connection (so MULTI ... EXEC in it is a transaction), and returns
	// one Result per command.
	DoMulti(ctx context.Context, cmds ...Command) []Result
	// Dedicated runs fn on a connection reserved to it for its duration,
	// for commands with connection state such as WATCH. In a cluster the
	// connection goes to the node that serves key.
	Dedicated(ctx context.Context, key string, fn func(Conn) error) error
}

// Command is one Redis command. Argv[0] is the command's name; Keys lists
// the positions in Argv that hold keys, so cluster clients can route it.
type Command struct {
	Argv []string
	Keys []int
}

// Cmd builds a command whose only key is its first argument, which is the
// shape of most commands a lock uses (SET, GET, DEL, PEXPIRE, ZADD, ...).
func Cmd(name, key string, args ...string) Command {
	argv := make([]string, 0, 2+len(args))
	argv = append(argv, name, key)
	argv = append(argv, args...)
	return Command{Argv: argv, Keys: firstKey}
}

// firstKey is the Keys of every command whose only key is its first
// argument, shared by them all: no one writes to a command's Keys.
var firstKey = []int{1}[:1:1]

// Bare builds a command that has no key, such as MULTI or EXEC.
func Bare(argv ...string) Command { return Command{Argv: argv} }

// Result is one reply of a pipeline.
type Result struct {
	Value any
	Err   error
}

// ServerError is an error reply sent by the Redis server.
type ServerError struct{ Msg string }

func (e *ServerError) Error() string { return "redis: " + e.Msg }

// IsNoScript reports whether err is Redis' NOSCRIPT reply to EVALSHA.
func IsNoScript(err error) bool {
	if err == nil {
		return false // no errors.As: its target escapes, an allocation per call
	}
	var se *ServerError
	return errors.As(err, &se) && strings.HasPrefix(se.Msg, "NOSCRIPT")
}

// Counted wraps a Conn and counts the commands sent through it, the
// client-side figure of what one acquisition costs Redis.
type Counted struct {
	conn     Conn
	commands *atomic.Int64
}

var _ Conn = (*Counted)(nil)

// NewCounted returns conn with a command counter.
func NewCounted(conn Conn) *Counted { return &Counted{conn: conn, commands: new(atomic.Int64)} }

// Wrap returns conn counted by the same counter as c.
func (c *Counted) Wrap(conn Conn) *Counted { return &Counted{conn: conn, commands: c.commands} }

// Commands returns how many commands were sent so far.
func (c *Counted) Commands() int64 { return c.commands.Load() }

// Do implements Conn.
func (c *Counted) Do(ctx context.Context, cmd Command) (any, error) {
	c.commands.Add(1)
	return c.conn.Do(ctx, cmd)
}

// DoMulti implements Conn; every command of the pipeline counts.
func (c *Counted) DoMulti(ctx context.Context, cmds ...Command) []Result {
	c.commands.Add(int64(len(cmds)))
	return c.conn.DoMulti(ctx, cmds...)
}

// Dedicated implements Conn; commands sent on the dedicated connection count.
func (c *Counted) Dedicated(ctx context.Context, key string, fn func(Conn) error) error {
	return c.conn.Dedicated(ctx, key, func(d Conn) error {
		return fn(c.Wrap(d))
	})
}

// ScanPrefix calls fn with every key under prefix on the server conn
// reaches, found with SCAN MATCH prefix* (never KEYS, which blocks the
// server); a key SCAN returns that is not under prefix is skipped. An
// error of fn ends the scan.
func ScanPrefix(ctx context.Context, conn Conn, prefix string, fn func(key string) error) error {
	cursor := "0"
	for {
		reply, err := conn.Do(ctx, Bare("SCAN", cursor, "MATCH", prefix+"*", "COUNT", "1000"))
		if err != nil {
			return fmt.Errorf("scan %s*: %w", prefix, err)
		}
		page, ok := reply.([]any)
		if !ok || len(page) != 2 {
			return fmt.Errorf("scan %s*: unexpected reply %v", prefix, reply)
		}
		cursor, _ = page[0].(string)
		keys, _ := page[1].([]any)
		for _, k := range keys {
			if key, _ := k.(string); strings.HasPrefix(key, prefix) {
				if err := fn(key); err != nil {
					return err
				}
			}
		}
		if cursor == "0" || cursor == "" {
			return nil
		}
	}
}
