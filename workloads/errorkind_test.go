package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/lockbench/lockbench/variants"
)

// libraryReply is an error reply as a lock library's own client returns
// it: its text is the server's reply.
type libraryReply string

func (e libraryReply) Error() string { return string(e) }

func TestFailureOf(t *testing.T) {
	oom := &variants.ServerError{Msg: "OOM command not allowed when used memory > 'maxmemory'."}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	tests := []struct {
		name          string
		err           error
		kind, message string
	}{
		{"a server reply, wrapped", fmt.Errorf("variants: lua-release: acquire: %w", oom), "OOM", oom.Msg},
		{"one node's reply of several", errors.Join(fmt.Errorf("node 1: %w", &variants.ServerError{Msg: "READONLY You can't write against a read only replica."}), io.EOF),
			"READONLY", "READONLY You can't write against a read only replica."},
		{"a redirection", &variants.ServerError{Msg: "MOVED 3999 127.0.0.1:6381"}, "MOVED", "MOVED 3999 127.0.0.1:6381"},
		{"a prefix of its own", &variants.ServerError{Msg: "WRONGTYPE Operation against a key holding the wrong kind of value"}, "WRONGTYPE",
			"WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"a reply without a code", &variants.ServerError{Msg: "something odd"}, ErrorKindOther, "something odd"},
		{"a library's own client", fmt.Errorf("redsync: %w", libraryReply("BUSY Redis is busy running a script.")), "BUSY", "BUSY Redis is busy running a script."},
		{"connection refused", fmt.Errorf("variants: %w", refused), ErrorKindRefused, ""},
		{"connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, ErrorKindReset, ""},
		{"broken pipe", &net.OpError{Op: "write", Err: syscall.EPIPE}, ErrorKindReset, ""},
		{"EOF", fmt.Errorf("read reply: %w", io.EOF), ErrorKindEOF, ""},
		{"a context deadline", fmt.Errorf("release: %w", context.DeadlineExceeded), ErrorKindTimeout, ""},
		{"a socket deadline", &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, ErrorKindTimeout, ""},
		{"something else", errors.New("rueidis client is closing or unable to connect redis"), ErrorKindOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := failureOf(tt.err)
			if f.Kind != tt.kind || f.Message != tt.message || f.Err != tt.err {
				t.Errorf("failureOf(%v) = %q, %q; want %q, %q", tt.err, f.Kind, f.Message, tt.kind, tt.message)
			}
		})
	}
}

// Classifying an error allocates nothing: a dead server's thousands of
// errors cost no garbage.
func TestFailureOfDoesNotAllocate(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("variants: acquire: %w", &variants.ServerError{Msg: "OOM command not allowed"}),
		&net.OpError{Op: "dial", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}},
		fmt.Errorf("x: %w", context.DeadlineExceeded),
		errors.New("other"),
	} {
		if n := testing.AllocsPerRun(100, func() { _ = failureOf(err) }); n != 0 {
			t.Errorf("failureOf(%v) allocates %.0f times", err, n)
		}
	}
}

func TestRedisPrefix(t *testing.T) {
	for msg, want := range map[string]string{
		"OOM command not allowed": "OOM", "ERR unknown command": "ERR", "CLUSTERDOWN The cluster is down": "CLUSTERDOWN",
		"NOAUTH": "NOAUTH", "A lowercase rest": ErrorKindOther, "Err mixed case": ErrorKindOther, "": ErrorKindOther,
		"ERR2 digits": "ERR2", "I/O error": ErrorKindOther,
	} {
		if got := redisPrefix(msg); got != want {
			t.Errorf("redisPrefix(%q) = %q, want %q", msg, got, want)
		}
	}
}
