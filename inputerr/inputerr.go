// Package inputerr makes the errors of bad input that library packages
// return: the text is the message alone (it names the flag or file and what
// is accepted), and the error wraps the package's sentinel, which the CLI
// maps to exit status 2 with errors.Is.
package inputerr

import "fmt"

// New is err with its message alone, wrapping sentinel as well as err.
func New(sentinel, err error) error { return wrapped{sentinel: sentinel, err: err} }

// Errorf is New(sentinel, fmt.Errorf(format, args...)).
func Errorf(sentinel error, format string, args ...any) error {
	return New(sentinel, fmt.Errorf(format, args...))
}

type wrapped struct{ sentinel, err error }

func (e wrapped) Error() string   { return e.err.Error() }
func (e wrapped) Unwrap() []error { return []error{e.sentinel, e.err} }
