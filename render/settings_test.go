package render_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// The table's notes say once per variant which settings a library
// variant used; variants without any add no line.
func TestNotesSayLibrarySettings(t *testing.T) {
	rec := &record.Record{Cells: []record.Cell{
		{Variant: "lua-release", Clients: 8},
		{Variant: "redsync", Clients: 8, Settings: "library defaults: expiry 8s"},
		{Variant: "redsync", Clients: 64, Settings: "library defaults: expiry 8s"},
	}}
	notes := render.Notes(rec)
	want := "redsync: library defaults: expiry 8s"
	if n := len(slices.DeleteFunc(slices.Clone(notes), func(s string) bool { return s != want })); n != 1 {
		t.Errorf("notes %q have %q %d times; want once", notes, want, n)
	}
	if slices.ContainsFunc(notes, func(s string) bool { return strings.HasPrefix(s, "lua-release:") }) {
		t.Errorf("notes %q describe lua-release's settings; it has none", notes)
	}
}
