package render

import (
	"fmt"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// Wrap wraps text at spaces into lines of at most width columns (a wide
// character, as in CJK, takes two), each line begun with indent and ended
// with a newline; a newline in text begins a paragraph. A word longer than
// a line stays whole.
func Wrap(text string, width int, indent string) string {
	var b strings.Builder
	for _, paragraph := range strings.Split(text, "\n") {
		line, n := indent, twwidth.Width(indent)
		empty := true
		for _, word := range strings.Fields(paragraph) {
			w := twwidth.Width(word)
			if !empty && n+1+w > width {
				b.WriteString(line + "\n")
				line, n, empty = indent, twwidth.Width(indent), true
			}
			if !empty {
				line, n = line+" ", n+1
			}
			line, n, empty = line+word, n+w, false
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Labelled is text wrapped into width columns behind label, the label
// padded to labelWidth columns and every further line indented as far.
func Labelled(label, text string, labelWidth, width int) string {
	pad := strings.Repeat(" ", labelWidth)
	return fmt.Sprintf("%-*s", labelWidth, label) + Wrap(text, width, pad)[labelWidth:]
}

// Cut is text on one line of at most width columns: whole when it fits,
// else cut at a space and ended with "…" (whose width the terminal may
// count as two). A first word longer than the line stays whole.
func Cut(text string, width int) string {
	text = strings.Join(strings.Fields(text), " ")
	if twwidth.Width(text) <= width {
		return text
	}
	first, _, _ := strings.Cut(Wrap(text, width-twwidth.Width("…"), ""), "\n")
	return strings.TrimRight(first, ",;:") + "…"
}
