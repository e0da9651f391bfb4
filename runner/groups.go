package runner

import (
	"context"
	"slices"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// connectGroups connects each client group of p to topo on connections of
// its own, through the proxies of its links (group→node) on network, if
// any.
func connectGroups(ctx context.Context, p plan.Plan, topo topologies.Topology, network *faults.Network) ([][]clients.Client, error) {
	var groups [][]clients.Client
	for _, name := range p.ClientGroupNames() {
		opts := clientOptions(p)
		if network != nil {
			opts.Dial = network.Dialer(name)
		}
		conns, err := clients.Connect(ctx, topo.Access(), opts)
		if err != nil {
			for _, g := range groups {
				for _, c := range g {
					c.Close()
				}
			}
			return nil, err
		}
		groups = append(groups, conns)
	}
	return groups, nil
}

// clientOptions are the options of a session's clients for p: go-redis'
// pool (PoolSize) and rueidis' rings (Callers) sized to its largest client
// count.
func clientOptions(p plan.Plan) clients.Options {
	most := slices.Max(p.Clients)
	return clients.Options{Library: p.Client, PoolSize: PoolSize(most), Callers: most}
}

// countedConns are a client's connections to its group's nodes as its
// variant uses them (Conn, then Conns, of variants.Config), each counted
// with counted in a counter of the client's own (variants.Counted.Wrap):
// no two clients write to one counter.
func countedConns(counted *variants.Counted, group []clients.Client) (variants.Conn, []variants.Conn) {
	all := make([]variants.Conn, len(group))
	for i, c := range group {
		all[i] = counted.Wrap(c)
	}
	return all[0], all
}
