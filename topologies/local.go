package topologies

import "context"

// Local is one redis-server that lockbench started and will stop.
type Local struct{ n *node }

var _ Topology = (*Local)(nil)

// StartLocal starts redis-server (bin, or the one on PATH when empty) on a
// free 127.0.0.1 port without persistence.
func StartLocal(ctx context.Context, bin string) (*Local, error) {
	n, err := startNode(ctx, bin)
	if err != nil {
		return nil, err
	}
	return &Local{n: n}, nil
}

func (l *Local) Kind() string          { return "local" }
func (l *Local) Endpoints() []Endpoint { return []Endpoint{{Addr: l.n.addr}} }
func (l *Local) Managed() bool         { return true }
func (l *Local) Representative() bool  { return true }

// PID is the redis-server's process id.
func (l *Local) PID() int { return l.n.cmd.Process.Pid }

// Close stops the server and removes its directory.
func (l *Local) Close() error { return l.n.stop() }
