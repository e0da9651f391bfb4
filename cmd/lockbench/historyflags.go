package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
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
	notes, failed, checked := render.HistoryNotes(rec)
	for _, n := range notes {
		fmt.Fprintln(stderr, "lockbench: "+n)
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
