package render_test

import (
	"testing"

	"github.com/lockbench/lockbench/render"
)

// Words wrap at the width, each line indented; a newline starts a
// paragraph; a word longer than a line stays whole.
func TestWrapText(t *testing.T) {
	for _, c := range []struct {
		text, indent string
		width        int
		want         string
	}{
		{"one two three four", "", 9, "one two\nthree\nfour\n"},
		{"one two\nthree", "# ", 20, "# one two\n# three\n"},
		{"a verylongword b", "  ", 6, "  a\n  verylongword\n  b\n"},
	} {
		if got := render.WrapText(c.text, c.width, c.indent); got != c.want {
			t.Errorf("WrapText(%q, %d, %q) = %q, want %q", c.text, c.width, c.indent, got, c.want)
		}
	}
}
