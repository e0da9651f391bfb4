package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/linearize"
)

// checkOptions are the flags of lockbench check.
type checkOptions struct {
	out     string
	view    string
	limit   int
	timeout time.Duration
	paths   []string
}

func runCheck(args []string, stdout, stderr io.Writer) error {
	var o checkOptions
	fs := newFlagSet("check", stderr)
	fs.StringVarP(&o.out, "out", "o", "", "write porcupine's HTML drawing of a failing history to this file (a directory for several)")
	fs.StringVar(&o.view, "view", history.CriticalSections.String(), "what to check: critical-sections (what the oracle checks) or leases (what the lock vouched for)")
	fs.IntVar(&o.limit, "limit", 0, "holders one lock name admits (default: the history's own, 1 for a lock)")
	fs.DurationVar(&o.timeout, "timeout", linearize.DefaultTimeout, "give up the search of a history after this long (verdict unknown)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.paths = fs.Args()
	view, err := o.validate()
	if err != nil {
		return err
	}
	return checkHistories(o, view, stdout, stderr)
}

// validate checks the flags and arguments and returns the view.
func (o checkOptions) validate() (history.View, error) {
	view, err := history.ParseView(o.view)
	if err != nil || view == history.AllOps {
		return 0, usagef("--view: %q is not a view to check (critical-sections or leases)", o.view)
	}
	switch {
	case len(o.paths) == 0:
		return 0, usagef("check: give at least one history (lockbench check histories/lua-release-c8.jsonl)")
	case o.limit < 0:
		return 0, usagef("--limit: %d is not a number of holders (at least 1; 0 for the history's own)", o.limit)
	case o.timeout <= 0:
		return 0, usagef("--timeout: %v is not a positive duration (e.g. 1m)", o.timeout)
	}
	if info, err := os.Stat(o.out); len(o.paths) > 1 && o.out != "" && err == nil && !info.IsDir() {
		return 0, usagef("--out: %s is a file; several histories need a directory for their drawings", o.out)
	}
	return view, nil
}

// checkHistories checks every history (history.Files: directories and
// the files in them, EDN and drawings passed over with a note on stderr)
// and prints its verdict; every history is read before any is checked, so
// that bad input fails at once.
func checkHistories(o checkOptions, view history.View, stdout, stderr io.Writer) error {
	paths, notes, err := history.Files(o.paths)
	if err != nil {
		return usagef("check: %w (give run --history's DIR, or files in it: DIR/CELL.jsonl)", err)
	}
	for _, note := range notes {
		fmt.Fprintln(stderr, "note:", note)
	}
	if len(paths) == 0 {
		return usagef("check: no history among %s (run --history DIR writes DIR/CELL.jsonl)", strings.Join(o.paths, " "))
	}
	o.paths = paths
	hs, err := history.ReadFiles(paths)
	if err != nil {
		return usagef("check: %w", err)
	}
	failed := 0
	for i, h := range hs {
		res, err := linearize.Check(h, linearize.Options{Limit: o.limit, View: view, Timeout: o.timeout})
		if err != nil {
			return usagef("%s: %w", o.paths[i], err)
		}
		what := o.paths[i]
		if h.Meta.Cell != "" {
			what += " (" + h.Meta.Cell + ")"
		}
		if err := res.WriteVerdict(stdout, what); err != nil {
			return err
		}
		if res.Verdict != linearize.NotLinearizable {
			continue
		}
		failed++
		if o.out != "" {
			path := linearize.DrawingPath(o.out, o.paths[i], len(hs) > 1)
			if err := res.Visualize(path); err != nil {
				return fmt.Errorf("check: %s: %w", path, err)
			}
			fmt.Fprintf(stdout, "  drawing: %s\n", path)
		}
	}
	if failed > 0 {
		return notLinearizable{failed, len(hs)}
	}
	return nil
}
