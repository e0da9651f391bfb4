package faults

import "github.com/lockbench/lockbench/topologies"

// Through is the address a process apart from lockbench (a lock driver's)
// dials to reach addr as a client of group: the proxy of the link
// group→node for a node's own or announced address, so that the network's
// faults cover its connections as they cover lockbench's own clients'
// (Dialer); addr itself for an address no node has.
func (n *Network) Through(group, addr string) (string, error) {
	node, target, ok := n.nodeAt(addr)
	if !ok {
		return addr, nil
	}
	return n.Proxy(topologies.Link{From: group, To: node}, target)
}
