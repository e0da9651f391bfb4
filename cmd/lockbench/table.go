package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lockbench/lockbench/progress"
	"github.com/lockbench/lockbench/render"
)

// tableFlags are --columns and --wide of run and sweep: which columns the
// table format shows.
type tableFlags struct {
	columns string // comma-separated names; "list" names them
	wide    bool
	names   []string // parsed columns
}

// check parses --columns; for --columns list it writes the columns to out
// and reports done, like --help.
func (f *tableFlags) check(out io.Writer) (done bool, err error) {
	switch {
	case f.columns == "":
		return false, nil
	case f.wide:
		return false, usagef("--columns and --wide: give one (--wide is every column)")
	case strings.TrimSpace(f.columns) == "list":
		fmt.Fprintf(out, "Columns of the table (--columns NAME,NAME,...; --wide: all but verdict and cost):\n  %s\n",
			strings.Join(render.ColumnList(), "\n  "))
		return true, nil
	}
	if f.names, err = render.ParseColumns(f.columns); err != nil {
		return false, usagef("--columns: %w (--columns list describes them)", err)
	}
	return false, nil
}

// given reports whether --columns or --wide was given.
func (f tableFlags) given() bool { return f.wide || f.names != nil }

// options are the table options of the flags for a table written to w:
// as wide as the terminal when w is one, or as $COLUMNS says.
func (f tableFlags) options(w io.Writer) render.TableOptions {
	return render.TableOptions{Columns: f.names, Wide: f.wide, Width: progress.TerminalWidth(w)}
}
