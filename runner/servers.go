package runner

import (
	"slices"
	"strings"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
)

// This file runs a plan's cells on each of its servers (plan.Plan.Servers,
// --servers redis,valkey): a session per server, the cells of one
// server together in each repetition, and the record naming each cell's
// server and each server's nodes.

// serversOf are the servers p's cells run on, in order: "" alone, the
// topology's own, when the plan names none.
func serversOf(p plan.Plan) []string {
	if len(p.Servers) == 0 {
		return []string{""}
	}
	return p.Servers
}

// product names the server of the session's data nodes, product and
// version ("valkey 8.0.1"), those of different nodes comma separated
// (sentinels' only where the session knows no data node); "" when none
// said.
func (s *session) product() string {
	if s.topo == nil {
		return ""
	}
	var data, any []string
	for i, n := range s.topo.Nodes() {
		if i >= len(s.products) || s.products[i] == "" {
			continue
		}
		if !slices.Contains(any, s.products[i]) {
			any = append(any, s.products[i])
		}
		if n.Role != topologies.RoleSentinel && !slices.Contains(data, s.products[i]) {
			data = append(data, s.products[i])
		}
	}
	if len(data) == 0 {
		data = any
	}
	return strings.Join(data, ", ")
}

// noteServer adds the nodes of a session on a server the record has not
// seen yet to its topology, and the server to its list of versions: the
// first session of each server names its nodes.
func (r *running) noteServer(s *session) {
	product := s.product()
	if product == "" || slices.Contains(strings.Split(r.rec.Topology.ServerVersion, ", "), product) {
		return
	}
	if r.rec.Topology.ServerVersion != "" {
		r.rec.Topology.ServerVersion += ", "
	}
	r.rec.Topology.ServerVersion += product
	r.rec.Topology.Nodes = append(r.rec.Topology.Nodes, nodesOf(s.topo.Nodes(), s.products)...)
}

// serversFlag is the --servers flag that runs a plan on servers, with a
// space before it; "" for none.
func serversFlag(servers []string) string {
	if len(servers) == 0 {
		return ""
	}
	return " --servers " + strings.Join(servers, ",")
}
