package faults

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/lockbench/lockbench/topologies"
)

// Network is the in-process TCP proxies (toxiproxy, used as a library) on
// the links of a topology lockbench starts: one per link, named by its two
// ends — from each client group, replica, sentinel and cluster node to
// each node (topologies.Link) — made when the link's first connection
// opens. A network fault adds its toxics to the proxies of the links
// between its sides, and to those of the links made while it lasts; Heal
// takes them away. The nodes themselves are never touched.
//
// Give a Network to topologies.Spec.Proxies, start the topology, and tell
// the network about it with Use; the clients connect through Dialer. On a
// topology lockbench did not start, no node announces a proxy: only the
// clients' own links go through the network.
type Network struct {
	server *toxiproxy.ApiServer
	groups []string

	mu      sync.Mutex
	proxies map[topologies.Link]*toxiproxy.Proxy
	faults  map[string]active // in force, by the fault in Parse's form
	nodes   func() []topologies.Node
	closed  bool
}

var _ topologies.Proxies = (*Network)(nil)

// active is a network fault in force: its links and its toxics.
type active struct {
	cut    cut
	toxics []string // JSON, as toxiproxy takes them
}

// NewNetwork returns the network of a run whose clients are in groups
// (clients, or clients-a, clients-b, ...).
func NewNetwork(groups []string) *Network {
	return &Network{
		server:  toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop()),
		groups:  groups,
		proxies: map[topologies.Link]*toxiproxy.Proxy{},
		faults:  map[string]active{},
	}
}

// Use tells the network the topology it carries the links of, whose
// nodes' roles its faults' sides are resolved against when they start.
func (n *Network) Use(t topologies.Topology) {
	n.mu.Lock()
	n.nodes = t.Nodes
	n.mu.Unlock()
}

// Proxy returns the listening address of link's proxy, which forwards to
// target; it starts the proxy with the toxics of the faults in force on
// the link the first time.
func (n *Network) Proxy(link topologies.Link, target string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return "", fmt.Errorf("faults: network closed")
	}
	if p, ok := n.proxies[link]; ok {
		return p.Listen, nil
	}
	p := toxiproxy.NewProxy(n.server, link.String(), "127.0.0.1:0", target)
	if err := p.Start(); err != nil {
		return "", fmt.Errorf("faults: proxy for %s: %w", link, err)
	}
	n.proxies[link] = p
	for _, a := range n.faults {
		if a.cut.crosses(link) {
			for _, spec := range a.toxics {
				if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
					return "", fmt.Errorf("faults: %s: %w", link, err)
				}
			}
		}
	}
	return p.Listen, nil
}

// streams are the two directions of a link's traffic.
var streams = []string{"upstream", "downstream"}

// Latency delays every byte on the fault's links by its latency ± jitter,
// both ways.
func (n *Network) Latency(f Fault) error {
	return n.start(f, fmt.Sprintf(`"type":"latency","attributes":{"latency":%d,"jitter":%d}`, f.Latency.Milliseconds(), f.Jitter.Milliseconds()), streams)
}

// Partition stops all traffic on the fault's links, both ways, without
// closing connections: each side sees the other vanish. New connections
// open, and stay silent.
func (n *Network) Partition(f Fault) error {
	return n.start(f, `"type":"timeout","attributes":{"timeout":0}`, streams)
}

// Reset resets the connections on the fault's links (TCP RST, the
// pending data dropped) when they next carry data, both ways, until the
// heal; new connections too. With a fraction below 1, each connection is
// reset with that probability (toxiproxy's toxicity), the others pass:
// what a lossy path, a flapping middlebox or a restarted proxy does to a
// client's connections without touching the node. The reset acts on the
// stream from the dialing end (a client, a replica, a sentinel) alone,
// which every connection carries first: a toxic on both streams would
// pass a connection only when neither drew it, (1 - fraction)² of them.
func (n *Network) Reset(f Fault) error {
	return n.start(f, fmt.Sprintf(`"type":"reset_peer","toxicity":%v,"attributes":{"timeout":0}`, cmp.Or(f.Fraction, 1)), streams[:1])
}

// start resolves the fault's sides and puts its toxics, one per stream of
// on (body gives the type and attributes), on its links.
func (n *Network) start(f Fault, body string, on []string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	var nodes []topologies.Node
	if n.nodes != nil {
		nodes = n.nodes()
	}
	c, err := resolve(f, nodes, n.groups)
	if err != nil {
		return fmt.Errorf("%w %q: %w", ErrBadFault, f, err)
	}
	id := f.String()
	if _, dup := n.faults[id]; dup {
		return fmt.Errorf("%w %q: the same fault is in force already", ErrBadFault, f)
	}
	a := active{cut: c}
	for _, stream := range on {
		a.toxics = append(a.toxics, fmt.Sprintf(`{"name":%q,"stream":%q,%s}`, toxicName(id, stream), stream, body))
	}
	n.faults[id] = a
	for link, p := range n.proxies {
		if !c.crosses(link) {
			continue
		}
		for _, spec := range a.toxics {
			if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
				return fmt.Errorf("faults: %s: %w", link, err)
			}
		}
	}
	return nil
}

// toxicName names the toxic of fault id on stream.
func toxicName(id, stream string) string { return "lockbench " + id + " " + stream }

// Heal ends the fault: its toxics leave every link.
func (n *Network) Heal(f Fault) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	id := f.String()
	if _, ok := n.faults[id]; !ok {
		return nil
	}
	delete(n.faults, id)
	for link, p := range n.proxies {
		for _, stream := range streams {
			if err := p.Toxics.RemoveToxic(context.Background(), toxicName(id, stream)); err != nil && !strings.Contains(err.Error(), "not found") {
				return fmt.Errorf("faults: %s: %w", link, err)
			}
		}
	}
	return nil
}

// Links lists the links that have a proxy, for reports and tests.
func (n *Network) Links() []topologies.Link {
	n.mu.Lock()
	defer n.mu.Unlock()
	links := make([]topologies.Link, 0, len(n.proxies))
	for l := range n.proxies {
		links = append(links, l)
	}
	return links
}

// Close stops every proxy and closes its connections.
func (n *Network) Close() {
	n.mu.Lock()
	n.closed = true
	proxies := n.proxies
	n.proxies = map[topologies.Link]*toxiproxy.Proxy{}
	n.mu.Unlock()
	for _, p := range proxies {
		p.Stop()
	}
}

// Dialer returns how the clients of group connect through the network: a
// connection to a node's own or announced address goes through the proxy
// of the link group→node; one to any other address (a node the topology
// does not list) goes there directly. The connection reports the address
// dialed as its remote one, as a direct connection would: client
// libraries compare it with the addresses the servers announce.
func (n *Network) Dialer(group string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		dial := addr
		if node, target, ok := n.nodeAt(addr); ok {
			var err error
			if dial, err = n.Proxy(topologies.Link{From: group, To: node}, target); err != nil {
				return nil, err
			}
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, dial)
		if err != nil {
			return nil, err
		}
		remote, err := net.ResolveTCPAddr(network, addr)
		if err != nil {
			return c, nil
		}
		return dialedConn{Conn: c, remote: remote}, nil
	}
}

// nodeAt names the node at addr, its own address or the one it announces,
// and gives its own address.
func (n *Network) nodeAt(addr string) (name, target string, ok bool) {
	n.mu.Lock()
	nodes := n.nodes
	n.mu.Unlock()
	if nodes == nil {
		return "", "", false
	}
	for _, node := range nodes() {
		if node.At(addr) {
			return node.Name, node.Endpoint.Addr, true
		}
	}
	return "", "", false
}

// dialedConn is a connection through a proxy that reports another remote
// address: the one dialed.
type dialedConn struct {
	net.Conn
	remote net.Addr
}

func (c dialedConn) RemoteAddr() net.Addr { return c.remote }

// Groups are the client groups the network's faults' sides may name.
func (n *Network) Groups() []string { return n.groups }
