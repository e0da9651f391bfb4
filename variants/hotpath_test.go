package variants

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// A script's command written into a buffer is the command Run sends
// without one, and it is in the buffer's array when it fits there.
func TestScriptCommandIn(t *testing.T) {
	s := NewScript("return 1")
	many := make([]string, 9)
	for i := range many {
		many[i] = fmt.Sprintf("k%d", i)
	}
	for _, tc := range []struct {
		name       string
		keys, args []string
	}{
		{"one key, one arg", []string{"k"}, []string{"token"}},
		{"two keys, three args", []string{"a", "b"}, []string{"x", "y", "z"}},
		{"no key", nil, []string{"x"}},
		{"more keys than the shared positions", many, []string{"x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := Command{Argv: []string{"EVALSHA", s.sha, fmt.Sprint(len(tc.keys))}}
			for i, k := range tc.keys {
				want.Argv = append(want.Argv, k)
				want.Keys = append(want.Keys, 3+i)
			}
			want.Argv = append(want.Argv, tc.args...)
			var buf argvBuffer
			for _, b := range [][]string{nil, buf[:0:2], buf[:]} {
				got := s.commandIn(b, "EVALSHA", s.sha, tc.keys, tc.args)
				if !slices.Equal(got.Argv, want.Argv) || !slices.Equal(got.Keys, want.Keys) {
					t.Errorf("commandIn(buffer of %d) = %q %v, want %q %v", cap(b), got.Argv, got.Keys, want.Argv, want.Keys)
				}
				inBuffer := cap(b) > 0 && &got.Argv[0] == &b[:1][0]
				if fits := len(want.Argv) <= cap(b); inBuffer != fits {
					t.Errorf("commandIn(buffer of %d) for %d arguments: in the buffer %v, want %v", cap(b), len(want.Argv), inBuffer, fits)
				}
			}
		})
	}
}

// key gives every name its key, whether it was the last one asked for or
// not, from concurrent callers too.
func TestKeyMemo(t *testing.T) {
	b := newBase(Config{Prefix: "p:"})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				name := fmt.Sprintf("lock:%d", (i/3+g)%5) // runs of one name, then another
				if got, want := b.key(name), "p:"+name; got != want {
					t.Errorf("key(%q) = %q, want %q", name, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Every lease's token is 32 hex digits of its own, and stays as it was
// while later leases are made.
func TestNewLeaseTokens(t *testing.T) {
	b := newBase(Config{Prefix: "p:"})
	release := func(context.Context, string, string) error { return nil }
	leases := make([]*tokenLease, 1000)
	copies := make([]string, len(leases))
	seen := map[string]bool{}
	for i := range leases {
		l := b.newLease("p:k", release)
		if _, err := hex.DecodeString(l.token); err != nil || len(l.token) != 32 {
			t.Fatalf("token %q: want 32 hex digits (%v)", l.token, err)
		}
		if seen[l.token] {
			t.Fatalf("token %q made twice", l.token)
		}
		seen[l.token] = true
		leases[i], copies[i] = l, string([]byte(l.token))
	}
	for i, l := range leases {
		if l.token != copies[i] || l.key != "p:k" {
			t.Errorf("lease %d: token %q, key %q; want %q, p:k", i, l.token, l.key, copies[i])
		}
	}
}

// busyConn answers every SET NX as a lock held by another.
type busyConn struct{ Conn }

func (busyConn) Do(context.Context, Command) (any, error) { return nil, nil }

// A lease is made again for a later acquire, with a new token, once Redis
// answered its release (released, or found the lease lost) or refused its
// SET; never after a release that failed, whose command may still be on
// its way with the lease's token.
func TestSpareLease(t *testing.T) {
	b := newBase(Config{Prefix: "p:", Conn: busyConn{}})
	var answer error
	release := func(context.Context, string, string) error { return answer }
	for _, tc := range []struct {
		answer error
		again  bool
	}{{nil, true}, {ErrLeaseLost, true}, {fmt.Errorf("read: %w", context.DeadlineExceeded), false}} {
		first := b.newLease("p:k", release)
		token := string([]byte(first.token))
		answer = tc.answer
		if err := first.Release(t.Context()); err != tc.answer {
			t.Fatalf("Release: %v, want %v", err, tc.answer)
		}
		next := b.newLease("p:j", release)
		if again := next == first; again != tc.again {
			t.Errorf("release answered %v: lease made again %v, want %v", tc.answer, again, tc.again)
		}
		if next.token == token || next.key != "p:j" {
			t.Errorf("release answered %v: next lease has token %q, key %q; want a new token, p:j", tc.answer, next.token, next.key)
		}
	}
	if _, err := b.setNX(t.Context(), "p:k", release); err != ErrBusy {
		t.Fatalf("setNX on a held key: %v, want ErrBusy", err)
	}
	if b.spare.Load() == nil {
		t.Error("the lease of a refused SET is not spare")
	}
}

// dedicatingConn answers every command with nil and runs Dedicated's fn
// on itself.
type dedicatingConn struct{ busyConn }

func (dedicatingConn) DoMulti(_ context.Context, cmds ...Command) []Result {
	return make([]Result, len(cmds))
}

func (d dedicatingConn) Dedicated(_ context.Context, _ string, fn func(Conn) error) error {
	return fn(d)
}

// Commands adds up the counters of every wrapper of one NewCounted, each
// written by goroutines of its own, the commands of their dedicated
// connections and pipelines included.
func TestCountedWrappers(t *testing.T) {
	root := NewCounted(dedicatingConn{})
	other := NewCounted(dedicatingConn{}) // counts apart
	var wg sync.WaitGroup
	for range 8 {
		c := root.Wrap(dedicatingConn{})
		wg.Go(func() {
			for range 1000 {
				_, _ = c.Do(t.Context(), Cmd("GET", "k"))
			}
			_ = c.Dedicated(t.Context(), "k", func(d Conn) error {
				d.DoMulti(t.Context(), Cmd("GET", "k"), Cmd("GET", "k"))
				return nil
			})
		})
	}
	_, _ = root.Do(t.Context(), Cmd("GET", "k"))
	_, _ = other.Do(t.Context(), Cmd("GET", "k"))
	wg.Wait()
	if got, want := root.Commands(), int64(8*1002+1); got != want {
		t.Errorf("root counted %d commands, want %d", got, want)
	}
	if got := root.Wrap(dedicatingConn{}).Commands(); got != root.Commands() {
		t.Errorf("a new wrapper reads %d, the root %d", got, root.Commands())
	}
	if got := other.Commands(); got != 1 {
		t.Errorf("another NewCounted counted %d, want 1", got)
	}
}
