package runner

import (
	"context"
	"errors"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/topologies"
)

// serverMeter reads Redis' own counters when a cell's measured phase
// starts and ends, to say what the cell cost the servers. The first
// snapshot runs beside the workload, so that a server that does not
// answer (a paused node) never holds the measured phase up.
type serverMeter struct {
	ctx     context.Context // the cell's, without its cancel
	stats   *snapshots
	before  []metrics.ServerSnapshot
	err     error         // of before
	snapped chan struct{} // closed once before is read
}

// openServerMeter connects to topo's data nodes before the cell starts.
func openServerMeter(ctx context.Context, topo topologies.Topology, library string) *serverMeter {
	stats, _ := openSnapshots(ctx, topo.Access(), topo.Nodes(), library) // a node left out only weakens the cost
	return &serverMeter{ctx: context.WithoutCancel(ctx), stats: stats, snapped: make(chan struct{})}
}

// snapshot reads every data node's counters.
func (m *serverMeter) snapshot() ([]metrics.ServerSnapshot, error) {
	if len(m.stats.nodes) == 0 {
		return nil, errors.New("runner: no data node to snapshot")
	}
	return m.stats.take(m.ctx)
}

// start reads the counters as the measured phase starts, in a goroutine
// of its own.
func (m *serverMeter) start() {
	go func() {
		defer close(m.snapped)
		m.before, m.err = m.snapshot()
	}()
}

// cost reads the counters again and returns what they rose by since
// start; false when a snapshot failed or the measured phase never started.
func (m *serverMeter) cost() (metrics.ServerCost, bool) {
	select {
	case <-m.snapped:
		if m.err != nil {
			return metrics.ServerCost{}, false
		}
		after, err := m.snapshot()
		if err != nil {
			return metrics.ServerCost{}, false
		}
		return metrics.Cost(m.before, after), true
	case <-time.After(snapshotTimeout + time.Second): // the measured phase never started
		return metrics.ServerCost{}, false
	}
}

func (m *serverMeter) close() { m.stats.close() }
