package progress

import "github.com/lockbench/lockbench/workloads"

// Cell is the cell a run is about to start, as the progress line and the
// metrics show it. The caller fills it from whatever runs the cells, so
// that progress knows nothing of the runner.
type Cell struct {
	Index, Total       int // from 0, of all cells and repetitions
	Variant            string
	Clients            int
	Repetition, Repeat int // from 1
	// Live is fed by the cell's clients while it runs (warm-up included);
	// progress reads it with Snapshot.
	Live *workloads.Live
}
