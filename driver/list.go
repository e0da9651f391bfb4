package driver

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteList writes the drivers as a table, one a line: name, library,
// language, the library versions it can run at once (the pinned one, then
// those installed says are installed), whether its command can run here
// (and if not, what it needs), and the command.
func WriteList(w io.Writer, ms []Manifest, installed func(*Package) []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tLIBRARY\tLANGUAGE\tVERSIONS\tRUNNABLE\tCOMMAND")
	for _, m := range ms {
		runnable := "yes"
		if _, err := m.Program(); err != nil {
			runnable = "no"
			if m.Requires != "" {
				runnable += ": " + m.Requires
			}
		}
		versions := "-"
		if m.Package != nil {
			versions = m.Package.Version + " (pinned)"
			if more := slices.DeleteFunc(installed(m.Package), func(v string) bool { return v == m.Package.Version }); len(more) > 0 {
				versions += ", " + strings.Join(more, ", ")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, orDash(m.Library), orDash(m.Language), versions, runnable, strings.Join(m.written(), " "))
	}
	return tw.Flush()
}

// written is m's command as its manifest writes it, EnvPlaceholder and
// all.
func (m Manifest) written() []string {
	if m.rawCommand == nil {
		return m.Command
	}
	return m.rawCommand
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
