package linearize

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockbench/lockbench/history"
)

// WriteVerdict writes the verdict on the history called what: one line,
// and for a history that is not linearizable its shortest window's
// operations.
func (res *Result) WriteVerdict(w io.Writer, what string) error {
	cut := ""
	if res.Cut {
		cut = ", cut: the verdict is about its prefix"
	}
	if _, err := fmt.Fprintf(w, "%s: %s (%s, limit %d: %d operations on %d keys, %d segments, %v%s)\n", what, res.Verdict, res.View,
		res.Limit, res.Steps, res.Keys, res.Segments, res.Elapsed.Round(time.Microsecond), cut); err != nil || res.Window == nil {
		return err
	}
	win := res.Window
	fmt.Fprintf(w, "  shortest window: %s, %d leases of clients %v, %v to %v; %d failing segments on %s\n", win.Key,
		len(win.Leases), win.Processes, time.Duration(win.From), time.Duration(win.To), res.FailingSegments,
		strings.Join(res.FailingKeys, ", "))
	for _, op := range win.Ops {
		if _, err := fmt.Fprintf(w, "    %s  call %v return %s\n", op, time.Duration(op.Call), returned(op)); err != nil {
			return err
		}
	}
	return nil
}

// returned is an operation's return time, "?" when it has none.
func returned(op history.Operation) string {
	if op.Pending() {
		return "?"
	}
	return time.Duration(op.Return).String()
}
