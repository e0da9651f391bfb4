package clients

import (
	"testing"

	"github.com/lockbench/lockbench/variants"
)

// The arguments go-redis is given are the command's, word for word, and
// the words boxed once cost no allocation.
func TestArgs(t *testing.T) {
	for _, cmd := range []variants.Command{
		variants.Cmd("SET", "lockbench:k", "0123456789abcdef0123456789abcdef", "NX", "PX", "10000"),
		variants.Bare("EVALSHA", "0123456789abcdef0123456789abcdef01234567", "1", "lockbench:k", "token"),
		variants.Cmd("DEL", "SET"), // a key that is also a word
		variants.Bare("PING"),
		variants.Bare(""),
	} {
		a := args(cmd)
		if len(a) != len(cmd.Argv) {
			t.Fatalf("args(%q) has %d arguments", cmd.Argv, len(a))
		}
		for i, s := range cmd.Argv {
			if got, ok := a[i].(string); !ok || got != s {
				t.Errorf("args(%q)[%d] = %#v, want %q", cmd.Argv, i, a[i], s)
			}
		}
	}
	words := variants.Bare("SET", "NX", "PX", "EVALSHA", "DEL", "1")
	if n := testing.AllocsPerRun(100, func() { _ = args(words) }); n != 1 {
		t.Errorf("args(%q) allocates %v times, want once (its slice)", words.Argv, n)
	}
}
