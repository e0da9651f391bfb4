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
	reply, err := conn.Do(ctx, s.command("EVALSHA", s.sha, keys, args))
	if IsNoScript(err) {
		reply, err = conn.Do(ctx, s.command("EVAL", s.src, keys, args))
	}
	return reply, err
}

func (s *Script) command(verb, body string, keys, args []string) Command {
	argv := make([]string, 0, 3+len(keys)+len(args))
	argv = append(argv, verb, body, strconv.Itoa(len(keys)))
	pos := make([]int, len(keys))
	for i, k := range keys {
		pos[i] = len(argv)
		argv = append(argv, k)
	}
	return Command{Argv: append(argv, args...), Keys: pos}
}
