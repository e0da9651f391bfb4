package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/linearize"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// HistoryOptions are what Run does with the cells' histories (package
// history): each cell records one, warm-up included, when they are set.
type HistoryOptions struct {
	// Dir, when set, is where each cell's history is written, as JSON
	// lines (<cell>.jsonl, what lockbench check reads) and as Jepsen's
	// EDN (<cell>.edn, the critical sections as Knossos' mutex reads
	// them); the directory must exist. Default "": kept in memory for the
	// check only.
	Dir string
	// Events bounds each cell's history; later events are dropped and the
	// record says the history was cut. Default history.DefaultCapacity.
	Events int
	// Check checks each cell's history with porcupine (package linearize,
	// the critical sections, as the oracle sees them) and puts the
	// verdict beside the oracle's counts; with Dir, a history that is not
	// linearizable gets porcupine's HTML drawing as <cell>.html. Default
	// false.
	Check bool
	// CheckTimeout bounds each check. Default linearize.DefaultTimeout.
	CheckTimeout time.Duration
}

// CellName is the name of a cell's files: variant and clients, the
// repetition under --repeat, the shard of a sharded run
// (lua-release-c4-r2.shard-1-of-3).
func CellName(variant string, clients, repetition, repeat int, shard *workloads.Shard) string {
	name := fmt.Sprintf("%s-c%d", variant, clients)
	if repeat > 1 {
		name += fmt.Sprintf("-r%d", repetition)
	}
	if shard != nil && shard.Count > 1 {
		name += fmt.Sprintf(".shard-%d-of-%d", shard.Index, shard.Count)
	}
	return name
}

// withMargins is spec with what the cell of variant needs to record its
// history and measure its margins.
func (r *running) withMargins(spec workloads.Spec, variant string) workloads.Spec {
	spec.LeaseTTL = variants.LeaseTTL(variant, r.p.TTL)
	if _, ok := plan.DriverName(variant); ok {
		m, _ := r.p.Driver(variant)
		spec.LeaseTTL = m.LeaseTTL(r.p.TTL) // 0: the library's own, which is not known
	}
	if info, err := variants.Lookup(variant); err == nil {
		spec.Renews = info.Claims.Renewal
	}
	if h := r.opts.History; h != nil {
		spec.HistoryEvents = h.Events
		if spec.HistoryEvents <= 0 {
			spec.HistoryEvents = history.DefaultCapacity
		}
	}
	return spec
}

// keepHistory writes the history h of the cell c, checks it, and says so
// in cell.
func (r *running) keepHistory(h *history.History, c plannedCell, cell *record.Cell) {
	opts := r.opts.History
	if opts == nil || h == nil {
		return
	}
	name := CellName(c.variant, cell.Clients, c.repetition, r.p.Repeat, r.opts.Shard)
	h.Meta.Cell = fmt.Sprintf("%s c=%d", c.variant, cell.Clients)
	h.Meta.Limit = max(r.p.Limit, 1)
	info := &record.HistoryInfo{Events: int64(len(h.Events)), Dropped: h.Meta.Dropped, Cut: h.Meta.Cut}
	cell.History = info
	if opts.Dir != "" {
		path := filepath.Join(opts.Dir, name+".jsonl")
		if err := writeHistory(path, h); err != nil {
			info.Error = err.Error()
		} else {
			info.Path = path
		}
	}
	if !opts.Check {
		return
	}
	res, err := linearize.Check(h, linearize.Options{Limit: h.Meta.Limit, Timeout: opts.CheckTimeout})
	if err != nil {
		info.Check = &record.HistoryCheck{Error: err.Error(), View: history.CriticalSections.String()}
		return
	}
	info.Check = historyCheckOf(res)
	if res.Verdict == linearize.NotLinearizable && opts.Dir != "" {
		if err := res.Visualize(filepath.Join(opts.Dir, name+".html")); err != nil && info.Error == "" {
			info.Error = err.Error()
		}
	}
}

// writeHistory writes h to path as JSON lines and beside it, with the
// extension .edn, as EDN.
func writeHistory(path string, h *history.History) error {
	edn := path[:len(path)-len(filepath.Ext(path))] + ".edn"
	for _, f := range []struct {
		path  string
		write func(*os.File) error
	}{
		{path, func(f *os.File) error { return history.WriteJSON(f, h) }},
		{edn, func(f *os.File) error { return history.WriteEDN(f, h, history.EDNOptions{}) }},
	} {
		file, err := os.Create(f.path)
		if err != nil {
			return fmt.Errorf("runner: history: %w", err)
		}
		err = f.write(file)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return errors.Join(fmt.Errorf("runner: history %s: %w", f.path, err), os.Remove(f.path))
		}
	}
	return nil
}
