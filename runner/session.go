package runner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// cleanupTimeout bounds the removal of a run's keys, which runs even after
// an interrupt.
const cleanupTimeout = 5 * time.Second

// session is a topology in use and the clients connected to it, through
// a proxy when the plan has network faults.
type session struct {
	topo    topologies.Topology
	net     *faults.Network
	conns   []clients.Client   // the first group's
	groups  [][]clients.Client // by client group (plan.ClientGroupNames)
	startup time.Duration
	// server is the server binary the session's local topology runs on
	// (plan.Plan.Servers), "" for the topology's own; products are its
	// nodes' servers and versions, in the order of topo.Nodes().
	server   string
	products []string
}

// maxPoolSize bounds PoolSize: Redis refuses connections past its
// maxclients (10000 by default), which a pool of one connection per client
// reaches at 5,000 clients; past this bound clients wait in go-redis' pool
// for a connection, as its authors intend (PoolTimeout), instead.
const maxPoolSize = 2000

// PoolSize is the connections a session's go-redis client may have busy
// at once per node, for a run of clients clients: one per client, and as
// many again for the variants that hold a dedicated connection while
// they send on another, up to maxPoolSize. Past 256 the client shares 256
// among the ordinary commands and keeps the rest for the dedicated
// connections (clients.Options.PoolSize).
func PoolSize(clients int) int { return min(2*clients+8, maxPoolSize) }

// openSession opens the plan's topology on server (see plan.Plan.Servers;
// "" for its own), with proxies on its links when the plan has network
// faults, connects its clients, each client group on connections of its
// own, and asks its nodes which server they are.
func openSession(ctx context.Context, p plan.Plan, server string) (*session, error) {
	began := time.Now()
	spec := p.Topology
	if server != "" {
		spec.RedisServer = server
	}
	s := &session{server: server}
	if slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return f.Kind.OnNetwork() }) {
		s.net = faults.NewNetwork(p.ClientGroupNames())
		spec.Proxies = s.net
	}
	topo, err := topologies.Open(ctx, spec)
	if err != nil {
		s.closeNet()
		return nil, err
	}
	s.topo = topo
	if s.net != nil {
		s.net.Use(topo)
	}
	if s.groups, err = connectGroups(ctx, p, topo, s.net); err != nil {
		s.closeNet()
		topo.Close()
		return nil, err
	}
	s.conns = s.groups[0]
	s.startup = time.Since(began)
	s.products, _ = topologies.Products(ctx, topo.Nodes()) // "" for a node that does not say
	return s, nil
}

// answerTimeout bounds the check that the servers still answer after a
// cell.
const answerTimeout = 2 * time.Second

// answering checks that every connection's server still answers a PING;
// not after an interrupt, which must not wait on a server.
func (s *session) answering(ctx context.Context) error {
	if ctx.Err() != nil || s.topo == nil {
		return nil
	}
	for _, c := range s.conns {
		pctx, cancel := context.WithTimeout(ctx, answerTimeout)
		_, err := c.Do(pctx, variants.Bare("PING"))
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// addrs are the addresses of the topology's nodes and of its access.
func (s *session) addrs() []string {
	var out []string
	for _, n := range s.topo.Nodes() {
		out = append(out, n.Endpoint.Addr)
	}
	for _, ep := range s.topo.Access().Endpoints {
		out = append(out, ep.Addr)
	}
	return out
}

func (s *session) closeNet() {
	if s.net != nil {
		s.net.Close()
	}
}

// close removes the run's keys (none when prefix is empty), disconnects
// and stops what the topology started.
func (s *session) close(ctx context.Context, library, prefix string) {
	if s.topo == nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if prefix != "" {
		_ = cleanup(cctx, s.topo.Access(), s.conns, library, prefix)
	}
	for _, group := range s.groups {
		for _, c := range group {
			c.Close()
		}
	}
	s.closeNet()
	_ = s.topo.Close()
}

// checkFaults refuses faults the topology cannot take: on nodes it does not
// have, or on servers lockbench did not start — there, with
// allowDestructive, only a pause with a time — and clock faults on nodes
// that run without the clock shim.
func (s *session) checkFaults(fs []faults.Fault, allowDestructive bool) error {
	if s.net != nil && s.topo.Managed() {
		if err := faults.CheckSides(fs, s.topo.Nodes(), s.net.Groups()); err != nil {
			return err
		}
	}
	onNode := slices.ContainsFunc(fs, func(f faults.Fault) bool { return f.Kind.OnNode() })
	if !onNode {
		return faults.Check(fs, 0, nil)
	}
	if _, err := topologies.ControllerOf(s.topo); err != nil {
		if !allowDestructive {
			return fmt.Errorf("%w: %w: %w (node faults run on topologies lockbench starts; on another server, --allow-destructive allows a pause with for=, sent as CLIENT PAUSE, which every client of that server waits out)",
				faults.ErrBadFault, topologies.ErrDestructive, err)
		}
		for _, f := range fs {
			if f.Kind.OnNode() && (f.Kind != faults.Pause || f.For <= 0) {
				return fmt.Errorf("%w: %s: on a server lockbench did not start only a pause with for= is allowed, even with --allow-destructive", faults.ErrBadFault, f)
			}
		}
	}
	var names []string
	for _, n := range s.topo.Nodes() {
		names = append(names, n.Name)
	}
	if err := faults.Check(fs, 0, names); err != nil {
		return err
	}
	return faults.CheckClocks(fs, s.topo)
}

// control is the node control faults act through (nil without node
// faults; checked before the run).
func control(p plan.Plan, topo topologies.Topology) topologies.Controller {
	if p.AllowDestructive {
		ctrl, _ := topologies.DestructiveControl(topo)
		return ctrl
	}
	ctrl, _ := topologies.ControllerOf(topo)
	return ctrl
}
