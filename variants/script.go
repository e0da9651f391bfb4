package variants

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strconv"
)

// Script is a Lua script sent as EVALSHA, falling back to EVAL when the
// server answers NOSCRIPT (a new or flushed server).
type Script struct {
	src, sha string
}

// NewScript returns the script with source src.
func NewScript(src string) *Script {
	sum := sha1.Sum([]byte(src))
	return &Script{src: src, sha: hex.EncodeToString(sum[:])}
}

// Run runs the script with keys and args.
func (s *Script) Run(ctx context.Context, conn Conn, keys []string, args ...string) (any, error) {
	return s.runIn(ctx, conn, nil, keys, args)
}

// runIn is Run with the command's arguments written into buf's array
// when they fit, which spares an allocation per call to a caller that
// keeps a buffer to reuse (a Conn keeps no command once it returns).
func (s *Script) runIn(ctx context.Context, conn Conn, buf, keys, args []string) (any, error) {
	reply, err := conn.Do(ctx, s.commandIn(buf, "EVALSHA", s.sha, keys, args))
	if IsNoScript(err) {
		reply, err = conn.Do(ctx, s.commandIn(buf, "EVAL", s.src, keys, args))
	}
	return reply, err
}

// command is verb body numkeys keys... args...
func (s *Script) command(verb, body string, keys, args []string) Command {
	return s.commandIn(nil, verb, body, keys, args)
}

// commandIn is command in buf's array when it has the room.
func (s *Script) commandIn(buf []string, verb, body string, keys, args []string) Command {
	argv := buf[:0]
	if n := 3 + len(keys) + len(args); cap(argv) < n {
		argv = make([]string, 0, n)
	}
	argv = append(argv, verb, body, strconv.Itoa(len(keys)))
	argv = append(argv, keys...)
	return Command{Argv: append(argv, args...), Keys: scriptKeys(len(keys))}
}

// scriptKeyPositions are the positions of the keys in EVAL and EVALSHA:
// after the verb, the script and the number of keys. Commands with up to
// that many keys share it; no one writes to a command's Keys.
var scriptKeyPositions = []int{3, 4, 5, 6, 7, 8, 9, 10}

// scriptKeys returns the Keys of a script's command with n keys.
func scriptKeys(n int) []int {
	if n <= len(scriptKeyPositions) {
		return scriptKeyPositions[:n:n]
	}
	pos := make([]int, n)
	for i := range pos {
		pos[i] = 3 + i
	}
	return pos
}
