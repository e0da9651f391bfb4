package render

import (
	"strings"
	"unicode/utf8"
)

// WrapText wraps text at spaces into lines of at most width columns, each
// line begun with indent and ended with a newline; a newline in text
// begins a paragraph. A word longer than a line stays whole. The CLI's
// help is wrapped with it.
func WrapText(text string, width int, indent string) string {
	var b strings.Builder
	for _, paragraph := range strings.Split(text, "\n") {
		line, n := indent, utf8.RuneCountInString(indent)
		empty := true
		for _, word := range strings.Fields(paragraph) {
			w := utf8.RuneCountInString(word)
			if !empty && n+1+w > width {
				b.WriteString(line + "\n")
				line, n, empty = indent, utf8.RuneCountInString(indent), true
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
