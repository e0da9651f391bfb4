package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/render"
)

// helpWidth is the most columns a line of help takes.
const helpWidth = 100

// about is what lockbench --help says first.
const about = "lockbench benchmarks and load-tests Redis distributed locks and semaphores, and counts " +
	"how often they fail to exclude: it runs several designs side by side on the same workload " +
	"and the same Redis, and prints one table."

// rootExamples end lockbench --help.
var rootExamples = []example{
	{"Every single-instance lock and the none control, 16 clients on one lock name, 5 s each",
		[]string{"lockbench run --duration 5s"}},
	{"Did a change make locking slower? Compare two records (lockbench help compare)",
		[]string{"lockbench compare old.json new.json --fail-on 'throughput:-20%'"}},
	{"The flags and examples of run", []string{"lockbench help run"}},
}

// writeRootHelp writes lockbench's help: its commands, a line each, then
// examples.
func writeRootHelp(w io.Writer) {
	var b strings.Builder
	b.WriteString(render.Wrap(about, helpWidth, ""))
	b.WriteString("\nUsage:\n  lockbench COMMAND [flags] [ARGUMENTS]\n\nCommands:\n")
	var rows [][2]string
	for _, c := range commands {
		if len(c.actions) == 0 {
			rows = append(rows, [2]string{c.name, c.summary})
		}
		for _, a := range c.actions {
			rows = append(rows, [2]string{a.name, a.summary})
		}
	}
	rows = append(rows, [2]string{"help", "show the help of lockbench, or of a command: lockbench help run"})
	writeRows(&b, rows)
	b.WriteString("\nRun 'lockbench help COMMAND' or 'lockbench COMMAND --help' for its flags and examples.\n")
	writeExamples(&b, rootExamples)
	io.WriteString(w, b.String())
}

// writeHelp writes the help of c, with its flags fs (nil for a group):
// how to call it, what it does, its actions or flags, then examples. It spaces out the
// lists of fs's defaults, for them to wrap.
func writeHelp(w io.Writer, c *command, fs *pflag.FlagSet) error {
	flags := ""
	if fs != nil {
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.HasPrefix(f.DefValue, "[") {
				f.DefValue = strings.ReplaceAll(f.DefValue, ",", ", ")
			}
		})
		flags = fs.FlagUsagesWrapped(helpWidth)
	}
	var b strings.Builder
	b.WriteString("Usage:\n")
	for _, line := range c.usageLines(flags != "") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("\n" + render.Wrap(c.about, helpWidth, ""))
	if len(c.actions) > 0 {
		b.WriteString("\nActions:\n")
		var rows [][2]string
		for _, a := range c.actions {
			rows = append(rows, [2]string{strings.TrimPrefix(a.name, c.name+" "), a.summary})
		}
		writeRows(&b, rows)
		fmt.Fprintf(&b, "\nRun 'lockbench help %s' for the flags and examples of an action.\n", c.actions[0].name)
	}
	if flags != "" {
		b.WriteString("\nFlags:\n" + flags)
	}
	examples := c.examples
	for _, a := range c.actions {
		examples = append(examples, a.examples...)
	}
	writeExamples(&b, examples)
	_, err := io.WriteString(w, b.String())
	return err
}

// usageLines are the forms of c's usage line, with [flags] when it has
// flags; a group's are its actions'.
func (c *command) usageLines(flags bool) []string {
	if len(c.actions) > 0 {
		var lines []string
		for _, a := range c.actions {
			lines = append(lines, a.usageLines(true)...)
		}
		return lines
	}
	head := "lockbench " + c.name
	if flags {
		head += " [flags]"
	}
	if len(c.args) == 0 {
		return []string{head}
	}
	lines := make([]string, len(c.args))
	for i, args := range c.args {
		lines[i] = head + " " + args
	}
	return lines
}

// writeRows writes rows of a name and its summary, the summaries aligned
// and wrapped to helpWidth.
func writeRows(b *strings.Builder, rows [][2]string) {
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		text := render.Wrap(r[1], helpWidth, indent)
		fmt.Fprintf(b, "  %-*s  %s", width, r[0], strings.TrimPrefix(text, indent))
	}
}

// writeExamples writes the section of examples, each after its comment.
func writeExamples(b *strings.Builder, examples []example) {
	b.WriteString("\nExamples:\n")
	for i, e := range examples {
		if i > 0 {
			b.WriteString("\n")
		}
		if e.comment != "" {
			b.WriteString(render.Wrap(e.comment, helpWidth, "  # "))
		}
		for _, line := range e.lines {
			b.WriteString("  " + line + "\n")
		}
	}
}
