package variants

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
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
//
// The counters of one NewCounted are many, one per Wrap, each on a cache
// line of its own, and Commands adds them up: clients that send through
// wrappers of their own (the runner gives every client one) never write
// to a line another core writes, where one shared counter is written by
// every command of every client.
type Counted struct {
	conn  Conn
	count *commandCount // this wrapper's
	all   *commandCounts
}

// commandCount is one wrapper's count, padded to a cache line.
type commandCount struct {
	n atomic.Int64
	_ [56]byte
}

// commandCounts are the counts of the wrappers of one NewCounted.
type commandCounts struct {
	mu     sync.Mutex
	counts []*commandCount
}

func (cs *commandCounts) add() *commandCount {
	c := new(commandCount)
	cs.mu.Lock()
	cs.counts = append(cs.counts, c)
	cs.mu.Unlock()
	return c
}

var _ Conn = (*Counted)(nil)

// NewCounted returns conn with a command counter.
func NewCounted(conn Conn) *Counted {
	all := &commandCounts{}
	return &Counted{conn: conn, count: all.add(), all: all}
}

// Wrap returns conn counted with c: in a counter of its own, which
// Commands of either adds up with c's.
func (c *Counted) Wrap(conn Conn) *Counted {
	return &Counted{conn: conn, count: c.all.add(), all: c.all}
}

// Commands returns how many commands were sent so far through c and
// every wrapper of the same NewCounted.
func (c *Counted) Commands() int64 {
	c.all.mu.Lock()
	defer c.all.mu.Unlock()
	var n int64
	for _, count := range c.all.counts {
		n += count.n.Load()
	}
	return n
}

// Do implements Conn.
func (c *Counted) Do(ctx context.Context, cmd Command) (any, error) {
	c.count.n.Add(1)
	return c.conn.Do(ctx, cmd)
}

// DoMulti implements Conn; every command of the pipeline counts.
func (c *Counted) DoMulti(ctx context.Context, cmds ...Command) []Result {
	c.count.n.Add(int64(len(cmds)))
	return c.conn.DoMulti(ctx, cmds...)
}

// Dedicated implements Conn; commands sent on the dedicated connection
// count in c's counter.
func (c *Counted) Dedicated(ctx context.Context, key string, fn func(Conn) error) error {
	return c.conn.Dedicated(ctx, key, func(d Conn) error {
		return fn(&Counted{conn: d, count: c.count, all: c.all})
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
