package driver

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteList writes the drivers as a table, one a line: name, library,
// language, whether its command can run here (and if not, what it needs),
// and the command.
func WriteList(w io.Writer, ms []Manifest) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tLIBRARY\tLANGUAGE\tRUNNABLE\tCOMMAND")
	for _, m := range ms {
		runnable := "yes"
		if _, err := m.Program(); err != nil {
			runnable = "no"
			if m.Requires != "" {
				runnable += ": " + m.Requires
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Name, orDash(m.Library), orDash(m.Language), runnable, strings.Join(m.Command, " "))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
