package inputerr_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/lockbench/lockbench/inputerr"
)

var errBad = errors.New("pkg: bad options")

// The message is the message alone; the sentinel and the cause are both
// found by errors.Is.
func TestErrorf(t *testing.T) {
	err := inputerr.Errorf(errBad, "--out: %w", fs.ErrPermission)
	if got, want := err.Error(), "--out: "+fs.ErrPermission.Error(); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, errBad) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is: sentinel %v, cause %v; want both", errors.Is(err, errBad), errors.Is(err, fs.ErrPermission))
	}
	if errors.Is(inputerr.Errorf(errBad, "x"), fs.ErrPermission) {
		t.Error("an error without that cause matches it")
	}
}
