package linearize

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// ErrNothingToShow is returned by Visualize for a result without an
// offending window.
var ErrNothingToShow = errors.New("linearize: nothing to visualize: no offending window")

// maxShownLeases bounds the leases drawn around a window; past it only the
// window's own are drawn.
const maxShownLeases = 2000

// Visualize writes porcupine's HTML visualization of the offending window
// to path: every lease of the window's key with an operation within the
// window's span, whole, with the window marked. Porcupine draws the
// longest linearizable prefix and the operation that cannot follow it.
func (r *Result) Visualize(path string) error {
	if r.Window == nil {
		return ErrNothingToShow
	}
	w := r.Window
	ks := r.keys[w.Key]
	shown := map[int]bool{}
	for l, ops := range ks.byUnit {
		for _, op := range ops {
			end := op.Return
			if op.Pending() {
				end = op.Call
			}
			if op.Call <= w.To && end >= w.From {
				shown[l] = true
			}
		}
	}
	if len(shown) > maxShownLeases {
		shown = map[int]bool{}
		for _, l := range w.Leases {
			shown[l] = true
		}
	}
	var steps []step
	for _, st := range ks.steps {
		if shown[st.lease] {
			steps = append(steps, st)
		}
	}
	client := 0
	for _, st := range steps {
		client = max(client, st.process+1)
	}
	m := r.model
	m.Partition = nil
	res, info := porcupine.CheckOperationsVerbose(m, operations(steps, 0, client, true), time.Minute)
	if res == porcupine.Ok {
		// Cannot happen: the window's leases alone are not linearizable.
		return fmt.Errorf("linearize: the window's %d leases checked linearizable when drawn", len(w.Leases))
	}
	info.AddAnnotations([]porcupine.Annotation{{
		Tag: "lockbench", Start: w.From, End: w.To,
		Description: fmt.Sprintf("offending window: %d leases of %s", len(w.Leases), w.Key),
		Details:     fmt.Sprintf("leases %v of clients %v cannot be linearized", w.Leases, w.Processes),
	}})
	if err := porcupine.VisualizePath(m, info, path); err != nil {
		return fmt.Errorf("linearize: visualize: %w", err)
	}
	return nil
}

// DrawingPath is where the drawing of the history at path goes when a
// user asks for drawings at out: out itself, or out/<name>.html when out
// is a directory or several histories are drawn (out is then made).
func DrawingPath(out, path string, several bool) string {
	if info, err := os.Stat(out); several || (err == nil && info.IsDir()) {
		_ = os.MkdirAll(out, 0o755) // Visualize reports a directory it cannot write
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ".html"
		return filepath.Join(out, name)
	}
	return out
}
