package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lockbench/lockbench/record"
)

// columnGap separates the compact table's columns.
const columnGap = "  "

// renderCompact writes the compact table (or the columns opts names),
// the conclusions and the notes, every line at most opts.Width
// (DefaultWidth) columns where the table can be made to fit.
func renderCompact(w io.Writer, rec *record.Record, opts TableOptions) error {
	width := opts.Width
	if width <= 0 || width > DefaultWidth {
		width = DefaultWidth
	}
	var cols []column
	if opts.Columns != nil {
		var err error
		if cols, err = namedColumns(rec, opts.Columns); err != nil {
			return err
		}
	} else {
		var rank []int
		cols, rank = compactColumns(rec)
		cols = fit(cols, rank, rows(rec, cols, false), width)
	}
	body := rows(rec, cols, false)
	var out strings.Builder
	writeAligned(&out, cols, body)
	if lines := Conclusions(rec); len(lines) > 0 {
		out.WriteString("\n")
		for _, line := range lines {
			writeWrapped(&out, line, width)
		}
	}
	out.WriteString("\n")
	for _, note := range compactNotes(rec, cols) {
		writeWrapped(&out, note, width)
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// fit drops columns of cols, the highest rank first (rank -1: never),
// until the table of body is at most width columns wide or only the
// columns never dropped are left.
func fit(cols []column, rank []int, body [][]string, width int) []column {
	cols, rank = slices.Clone(cols), slices.Clone(rank)
	for tableWidth(cols, body) > width {
		drop := -1
		for i, r := range rank {
			if r >= 0 && (drop < 0 || r > rank[drop]) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		cols, rank = slices.Delete(cols, drop, drop+1), slices.Delete(rank, drop, drop+1)
		for i := range body {
			body[i] = slices.Delete(slices.Clone(body[i]), drop, drop+1)
		}
	}
	return cols
}

// widths are the columns' widths in runes: the widest of header and values.
func widths(cols []column, body [][]string) []int {
	ws := make([]int, len(cols))
	for j, col := range cols {
		ws[j] = utf8.RuneCountInString(col.header)
		for _, row := range body {
			ws[j] = max(ws[j], utf8.RuneCountInString(row[j]))
		}
	}
	return ws
}

// tableWidth is how many columns the aligned table takes.
func tableWidth(cols []column, body [][]string) int {
	total := 0
	for _, w := range widths(cols, body) {
		total += w
	}
	return total + len(columnGap)*max(len(cols)-1, 0)
}

// leftAligned are the columns of words, not figures.
func leftAligned(col column) bool {
	return col.name() == "variant" || col.name() == "verdict" || col.name() == "counters"
}

// writeAligned writes the table of cols: the header, a rule under it, the
// rows; figures right-aligned, words left.
func writeAligned(out *strings.Builder, cols []column, body [][]string) {
	ws := widths(cols, body)
	line := func(cells []string) {
		var b strings.Builder
		for j, cell := range cells {
			if j > 0 {
				b.WriteString(columnGap)
			}
			pad := strings.Repeat(" ", ws[j]-utf8.RuneCountInString(cell))
			if leftAligned(cols[j]) {
				b.WriteString(cell + pad)
			} else {
				b.WriteString(pad + cell)
			}
		}
		out.WriteString(strings.TrimRight(b.String(), " ") + "\n")
	}
	line(headers(cols))
	rule := make([]string, len(cols))
	for j := range cols {
		rule[j] = strings.Repeat("-", ws[j])
	}
	line(rule)
	for _, row := range body {
		line(row)
	}
}

// compactNotes are the notes under the compact table: Notes with a legend
// of its columns, and why each failed cell has no data.
func compactNotes(rec *record.Record, cols []column) []string {
	legend := []string{"acquire latency of successful acquisitions"}
	for _, col := range cols {
		if about, ok := compactLegend[col.name()]; ok {
			legend = append(legend, col.header+" = "+about)
		}
	}
	legend = append(legend, "--wide shows every figure")
	out := notes(rec, strings.Join(legend, "; "))
	for _, g := range record.Groups(rec) {
		if c := g.Summary(); c.Error != "" {
			out = append(out, fmt.Sprintf("%s, %d clients: %s: %s", c.Variant, c.Clients, NoData, c.Error))
		}
	}
	return out
}

// compactLegend says, briefly, what the compact table's less obvious
// columns show.
var compactLegend = map[string]string{
	"cpu-us/acq": "Redis CPU per acquisition",
	"cmds/acq":   "client commands per acquisition",
	"verdict":    "safe, or the worst that broke",
}

// writeWrapped writes line wrapped to width: broken after its clauses
// ("; " and " · ") where it can be, else between words, the lines after
// the first indented.
func writeWrapped(out *strings.Builder, line string, width int) {
	for _, l := range wrap(line, width) {
		out.WriteString(l + "\n")
	}
}

// indent starts each continuation line of a wrapped note.
const indent = "  "

// wrap breaks line into lines of at most width runes where its words
// allow: whole clauses packed together first, a clause too long for a
// line split between words.
func wrap(line string, width int) []string {
	if utf8.RuneCountInString(line) <= width {
		return []string{line}
	}
	var lines []string
	cur := ""
	room := func() int {
		if len(lines) == 0 {
			return width
		}
		return width - len(indent)
	}
	flush := func() {
		if cur == "" {
			return
		}
		if len(lines) > 0 {
			cur = indent + cur
		}
		lines = append(lines, cur)
		cur = ""
	}
	add := func(piece string) bool {
		next := piece
		if cur != "" {
			next = cur + " " + piece
		}
		if utf8.RuneCountInString(next) > room() {
			return false
		}
		cur = next
		return true
	}
	for _, clause := range clauses(line) {
		if add(clause) {
			continue
		}
		flush()
		if add(clause) {
			continue
		}
		for _, word := range strings.Fields(clause) {
			if !add(word) {
				flush()
				cur = word
			}
		}
	}
	flush()
	return lines
}

// clauses splits a note after each "; " and " · ", the separators kept
// at the ends of the clauses they close.
func clauses(line string) []string {
	var out []string
	for rest := line; rest != ""; {
		i, sep := -1, ""
		for _, s := range []string{"; ", " · "} {
			if j := strings.Index(rest, s); j >= 0 && (i < 0 || j < i) {
				i, sep = j, s
			}
		}
		if i < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, rest[:i+len(sep)-1])
		rest = rest[i+len(sep):]
	}
	return out
}
