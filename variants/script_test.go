package variants_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lockbench/lockbench/variants"
)

func TestIsNoScript(t *testing.T) {
	noScript := &variants.ServerError{Msg: "NOSCRIPT No matching script. Please use EVAL."}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"NOSCRIPT", noScript, true},
		{"NOSCRIPT wrapped", fmt.Errorf("release: %w", noScript), true},
		{"another server error", &variants.ServerError{Msg: "WRONGTYPE Operation against a key"}, false},
		{"not a server error", errors.New("NOSCRIPT in a plain error"), false},
	} {
		if got := variants.IsNoScript(tc.err); got != tc.want {
			t.Errorf("IsNoScript(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Every EVALSHA's reply goes through IsNoScript: with no error it must
// cost nothing.
func TestIsNoScriptNilAllocatesNothing(t *testing.T) {
	var err error
	if n := testing.AllocsPerRun(1000, func() { _ = variants.IsNoScript(err) }); n != 0 {
		t.Errorf("IsNoScript(nil) allocates %v times per call, want 0", n)
	}
}
