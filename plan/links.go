package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/faults"
)

// clientGroupPattern is what a client group's name may be: it is the end
// of a side's name (clients-a).
var clientGroupPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,31}$`)

// ClientGroupNames are the names the sides of network faults give the
// plan's client groups: clients-a, clients-b for groups a, b; clients
// when there are none.
func (p Plan) ClientGroupNames() []string {
	if len(p.ClientGroups) == 0 {
		return []string{faults.GroupClients}
	}
	names := make([]string, len(p.ClientGroups))
	for i, g := range p.ClientGroups {
		names[i] = faults.GroupClients + "-" + g
	}
	return names
}

// checkLinks checks the client groups, and that the network faults fit
// the topology before it starts: sides of its nodes and the plan's groups
// on one lockbench starts (the proxies sit on its links, which its nodes
// announce); elsewhere, only latency on the clients' links to a node.
func (p Plan) checkLinks() error {
	for i, g := range p.ClientGroups {
		if !clientGroupPattern.MatchString(g) || slices.Contains(p.ClientGroups[:i], g) {
			return invalid(ErrClientGroups, "client groups %s: each name once, 1-32 of a-z 0-9 _ starting with a letter or digit (example: a,b)",
				strings.Join(p.ClientGroups, ","))
		}
	}
	if len(p.ClientGroups) > 0 && slices.Min(p.Clients) < len(p.ClientGroups) {
		return invalid(ErrClientGroups, "%d client groups need at least %d clients in every cell (clients %v)",
			len(p.ClientGroups), len(p.ClientGroups), p.Clients)
	}
	var network []faults.Fault
	for _, f := range p.Faults {
		if f.Kind.OnNetwork() {
			network = append(network, f)
		}
	}
	if len(network) == 0 {
		return nil
	}
	nodes, err := p.Topology.LocalNodes()
	if err == nil {
		return faults.CheckSides(network, nodes, p.ClientGroupNames())
	}
	// On servers lockbench did not start only the clients' own links go
	// through its proxies; the nodes' names are checked once it knows them.
	for _, f := range network {
		if f.Kind != faults.Latency || f.Sides != "" {
			return fmt.Errorf("%w %q: partitions, resets, and faults between sides, run on a topology lockbench starts (local, local:replicated, "+
				"local:sentinel, local:cluster, local:redlock), whose nodes announce the proxies on their links; %s is not one "+
				"(there, only latency node=... between lockbench's clients and a node)", faults.ErrBadFault, f, topologyName(p.Topology))
		}
	}
	return nil
}
