package history

import (
	"errors"
	"fmt"
)

// View selects which operations of a history a check or an export looks
// at: the protected resource's or the lock's.
type View uint8

// The views.
const (
	// CriticalSections is what the oracle checks: enter and exit, the
	// holders' stays in the protected resource. Its question is whether
	// more holders than the limit were ever inside at once.
	CriticalSections View = iota
	// Leases is what the lock promises: acquire, release and extend. Its
	// question is whether the lock handed out more leases than the limit
	// that it still vouched for (see package linearize).
	Leases
	// AllOps is every operation under its own name (exports only).
	AllOps
	numViews
)

var viewNames = [numViews]string{"critical-sections", "leases", "all"}

// ErrView is wrapped by [ParseView]'s error.
var ErrView = errors.New("history: unknown view")

// String returns the view's name as ParseView accepts it.
func (v View) String() string {
	if v < numViews {
		return viewNames[v]
	}
	return fmt.Sprintf("view(%d)", uint8(v))
}

// ParseView returns the view named s.
func ParseView(s string) (View, error) {
	for i, n := range viewNames {
		if s == n {
			return View(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q (known: critical-sections, leases, all)", ErrView, s)
}

// Includes reports whether the view looks at op.
func (v View) Includes(op Op) bool {
	switch v {
	case CriticalSections:
		return op == Enter || op == Exit
	case Leases:
		return op == Acquire || op == Release || op == Extend
	}
	return v == AllOps
}
