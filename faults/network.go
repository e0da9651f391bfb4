package faults

import (
	"context"
	"fmt"
	"strings"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/lockbench/lockbench/topologies"
)

// Network puts an in-process TCP proxy (toxiproxy, used as a library) in
// front of every data node, so that network faults can slow or cut the
// traffic between the clients and one node without touching the node.
type Network struct {
	proxies map[string]*toxiproxy.Proxy // by node name
}

// NewNetwork starts a proxy on a free loopback port for every master and
// replica of nodes, and returns it with access rewritten to go through the
// proxies. Only direct access can be proxied: a cluster or Sentinel tells
// clients the nodes' own addresses, which would bypass the proxies.
func NewNetwork(access topologies.Access, nodes []topologies.Node) (*Network, topologies.Access, error) {
	if access.Mode == topologies.ModeCluster || access.MasterName != "" {
		return nil, access, fmt.Errorf("%w: network faults need a single node, a master with replicas or independent masters "+
			"(a cluster or Sentinel hands clients the nodes' own addresses, around the proxy)", ErrBadFault)
	}
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	n := &Network{proxies: map[string]*toxiproxy.Proxy{}}
	byAddr := map[string]string{}
	for _, node := range nodes {
		if node.Role == topologies.RoleSentinel {
			continue
		}
		p := toxiproxy.NewProxy(server, node.Name, "127.0.0.1:0", node.Endpoint.Addr)
		if err := p.Start(); err != nil {
			n.Close()
			return nil, access, fmt.Errorf("faults: proxy for %s: %w", node.Name, err)
		}
		n.proxies[node.Name] = p
		byAddr[node.Endpoint.Addr] = p.Listen
	}
	proxied := access
	proxied.Endpoints = nil
	for _, ep := range access.Endpoints {
		if addr, ok := byAddr[ep.Addr]; ok {
			ep.Addr = addr
		}
		proxied.Endpoints = append(proxied.Endpoints, ep)
	}
	return n, proxied, nil
}

// has reports whether the network proxies the node.
func (n *Network) has(node string) bool {
	_, ok := n.proxies[node]
	return ok
}

// Latency delays every byte between the clients and node by latency ±
// jitter, both ways.
func (n *Network) Latency(node string, latency, jitter int64) error {
	for _, stream := range []string{"upstream", "downstream"} {
		if err := n.toxic(node, stream, fmt.Sprintf(`{"name":"lockbench-%s","type":"latency","stream":%q,"attributes":{"latency":%d,"jitter":%d}}`,
			stream, stream, latency, jitter)); err != nil {
			return err
		}
	}
	return nil
}

// Partition stops all traffic between the clients and node, both ways,
// without closing connections: the node seems to vanish.
func (n *Network) Partition(node string) error {
	for _, stream := range []string{"upstream", "downstream"} {
		if err := n.toxic(node, stream, fmt.Sprintf(`{"name":"lockbench-%s","type":"timeout","stream":%q,"attributes":{"timeout":0}}`,
			stream, stream)); err != nil {
			return err
		}
	}
	return nil
}

// Heal removes the node's faults.
func (n *Network) Heal(node string) error {
	p, err := n.proxy(node)
	if err != nil {
		return err
	}
	for _, stream := range []string{"upstream", "downstream"} {
		if err := p.Toxics.RemoveToxic(context.Background(), "lockbench-"+stream); err != nil && !strings.Contains(err.Error(), "not found") {
			return err
		}
	}
	return nil
}

func (n *Network) toxic(node, stream, spec string) error {
	p, err := n.proxy(node)
	if err != nil {
		return err
	}
	if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
		return fmt.Errorf("faults: %s %s: %w", node, stream, err)
	}
	return nil
}

func (n *Network) proxy(node string) (*toxiproxy.Proxy, error) {
	p, ok := n.proxies[node]
	if !ok {
		return nil, fmt.Errorf("%w: the network has no node %q", ErrBadFault, node)
	}
	return p, nil
}

// Close stops every proxy and closes its connections.
func (n *Network) Close() {
	for _, p := range n.proxies {
		p.Stop()
	}
}
