package workloads

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/variants"
)

// The kinds of error that are not a Redis error reply (whose kind is its
// prefix: OOM, READONLY, MOVED, ASK, LOADING, NOSCRIPT, BUSY, CLUSTERDOWN,
// MASTERDOWN, NOAUTH, ERR, ...).
const (
	ErrorKindTimeout = "timeout"            // a command or dial deadline passed
	ErrorKindRefused = "connection refused" // nothing listens at the address
	ErrorKindReset   = "connection reset"   // the peer closed the connection (reset, broken pipe)
	ErrorKindEOF     = "EOF"                // the connection ended mid-reply
	ErrorKindOther   = "other"              // none of these
)

// failureOf classifies err, an error an acquire or a release returned,
// for the recorder: a Redis error reply by its prefix (the reply is the
// sample), else by what went wrong on the connection. It walks err's
// chain without allocating. err is not nil.
func failureOf(err error) metrics.ClientError {
	f := metrics.ClientError{Kind: ErrorKindOther, Err: err}
	if msg, ok := serverReply(err); ok {
		f.Kind, f.Message = redisPrefix(msg), msg
		return f
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		f.Kind = ErrorKindRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		f.Kind = ErrorKindReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		f.Kind = ErrorKindEOF
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), timedOut(err):
		f.Kind = ErrorKindTimeout
	default:
		// A lock library with a client of its own (rueidislock, redsync)
		// hands back that client's error reply: its text is the reply.
		if msg := innermost(err).Error(); redisPrefix(msg) != ErrorKindOther {
			f.Kind, f.Message = redisPrefix(msg), msg
		}
	}
	return f
}

// innermost is the last error on err's chain (of the first branches).
func innermost(err error) error {
	for {
		next := unwrapFirst(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// serverReply returns the server's error reply inside err: the first
// *variants.ServerError on its chain (the first branch of a joined error).
func serverReply(err error) (string, bool) {
	for err != nil {
		if se, ok := err.(*variants.ServerError); ok {
			return se.Msg, true
		}
		err = unwrapFirst(err)
	}
	return "", false
}

// timedOut reports whether an error on err's chain says it is a timeout
// (net.Error's Timeout).
func timedOut(err error) bool {
	for err != nil {
		if t, ok := err.(interface{ Timeout() bool }); ok && t.Timeout() {
			return true
		}
		err = unwrapFirst(err)
	}
	return false
}

// unwrapFirst is the error err wraps, the first of several.
func unwrapFirst(err error) error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return u.Unwrap()
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if e != nil {
				return e
			}
		}
	}
	return nil
}

// redisPrefix is the kind of a Redis error reply: its first word when that
// is two or more capitals (OOM, READONLY, MOVED, NOSCRIPT, ERR, ...), as Redis
// writes its error codes; else ErrorKindOther. It returns a part of msg:
// no allocation.
func redisPrefix(msg string) string {
	end := 0
	for end < len(msg) && (msg[end] >= 'A' && msg[end] <= 'Z' || end > 0 && (msg[end] == '_' || msg[end] >= '0' && msg[end] <= '9')) {
		end++
	}
	if end < 2 || end < len(msg) && msg[end] != ' ' {
		return ErrorKindOther
	}
	return msg[:end]
}
