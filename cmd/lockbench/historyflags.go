package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
)

// historyFlags are run's --history, --history-max and --check-history.
type historyFlags struct {
	dir    string
	max    int
	check  bool
	maxSet bool
}

func (h *historyFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&h.dir, "history", "", "write each cell's history into this directory (CELL.jsonl, CELL.edn)")
	fs.IntVar(&h.max, "history-max", history.DefaultCapacity, "most events kept per cell's history; later ones are dropped")
	fs.BoolVar(&h.check, "check-history", false, "check each cell's history with porcupine; exit 1 if one is not linearizable")
}

// options are the runner's history options of the flags, nil without
// --history or --check-history. It creates the --history directory.
func (h historyFlags) options() (*runner.HistoryOptions, error) {
	switch {
	case h.max < 1:
		return nil, usagef("--history-max: %d is not a number of events (at least 1, e.g. %d)", h.max, history.DefaultCapacity)
	case h.dir == "" && !h.check:
		if h.maxSet {
			return nil, usagef("--history-max: needs --history DIR or --check-history (it bounds the history they keep)")
		}
		return nil, nil
	}
	if h.dir != "" {
		if err := os.MkdirAll(h.dir, 0o755); err != nil {
			return nil, usagef("--history: %s is not a directory lockbench can write: %w", h.dir, err)
		}
	}
	return &runner.HistoryOptions{Dir: h.dir, Events: h.max, Check: h.check}, nil
}

// reportHistories prints where each cell's history went and its verdict,
// and returns errThresholds when some history is not linearizable.
func reportHistories(rec *record.Record, stderr io.Writer) error {
	failed, checked := 0, 0
	for _, c := range rec.Cells {
		h := c.History
		if h == nil {
			continue
		}
		name := fmt.Sprintf("%s, %d clients", c.Variant, c.Clients)
		if h.Path != "" {
			cut := ""
			if h.Cut {
				cut = fmt.Sprintf(" (cut: %d events dropped)", h.Dropped)
			}
			fmt.Fprintf(stderr, "lockbench: history of %s: %s, %d events%s\n", name, h.Path, h.Events, cut)
		}
		if h.Error != "" {
			fmt.Fprintf(stderr, "lockbench: history of %s: %s\n", name, h.Error)
		}
		if h.Check == nil {
			continue
		}
		checked++
		fmt.Fprintf(stderr, "lockbench: history of %s: %s (oracle: %d overlaps)\n", name, describeVerdict(h.Check), c.Violations.Overlaps)
		if h.Check.Verdict == record.VerdictNotLinearizable {
			failed++
		}
	}
	if failed > 0 {
		return notLinearizable{failed, checked}
	}
	return nil
}

// notLinearizable is the error of a run or check whose histories are not
// all linearizable: exit status 1, like a failed --check.
type notLinearizable struct{ failed, of int }

func (e notLinearizable) Error() string {
	return fmt.Sprintf("%d of %d histories are not linearizable", e.failed, e.of)
}

func (e notLinearizable) Is(target error) bool { return target == errThresholds }

// describeVerdict is a check's verdict with its window, in one line.
func describeVerdict(c *record.HistoryCheck) string {
	switch {
	case c.Error != "":
		return "not checked: " + c.Error
	case c.Window == nil:
		return c.Verdict
	}
	w := c.Window
	return fmt.Sprintf("%s: %s, leases %v of clients %v, %s to %s", c.Verdict, w.Key, w.Leases, w.Processes,
		time.Duration(w.FromNS), time.Duration(w.ToNS))
}
