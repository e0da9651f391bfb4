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

// groupConns are one client group's connections as its variants use
// them: Conn and Conns of variants.Config.
type groupConns struct {
	conn variants.Conn
	all  []variants.Conn
}

// countedGroups are the groups' connections, all counted by counted's
// counter; counted itself is the first group's first connection.
func countedGroups(counted *variants.Counted, groups [][]clients.Client) []groupConns {
	out := make([]groupConns, len(groups))
	for i, conns := range groups {
		first := counted
		if i > 0 {
			first = counted.Wrap(conns[0])
		}
		out[i] = groupConns{conn: first, all: []variants.Conn{first}}
		for _, c := range conns[1:] {
			out[i].all = append(out[i].all, counted.Wrap(c))
		}
	}
	return out
}
