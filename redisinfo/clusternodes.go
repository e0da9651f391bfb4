package redisinfo

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// ClusterSlots is the number of hash slots of a Redis Cluster.
const ClusterSlots = 16384

// ClusterNode is one line of CLUSTER NODES: a node of the cluster as the
// node asked sees it.
type ClusterNode struct {
	// ID is the node's id in the cluster.
	ID string
	// Addr is the ip:port clients use; "" for a node whose address is not
	// known (flag noaddr, written ":0"), and for the node asked before it
	// has learnt its own ip (written ":port").
	Addr string
	// BusPort is the node's cluster bus port (0 when not given, before
	// Redis 4).
	BusPort int
	// Hostname is the hostname the node announces, "" when none (Redis 7).
	Hostname string
	// Flags are myself, master, slave, fail?, fail, handshake, noaddr,
	// nofailover ..., in the order given; none for "noflags".
	Flags []string
	// MasterID is a replica's master's id; "" for a master (written "-").
	MasterID string
	// ConfigEpoch is the node's configuration epoch (of its master, for a
	// replica).
	ConfigEpoch int64
	// Connected reports whether the node asked has its bus link to this
	// node up (link-state connected).
	Connected bool
	// Slots are the ranges of hash slots the node serves (a master), in the
	// order given, without the slots being migrated or imported.
	Slots []SlotRange
}

// SlotRange is the hash slots First through Last, both included.
type SlotRange struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// Has reports whether the node has flag (myself, master, slave, fail? ...).
func (n ClusterNode) Has(flag string) bool { return slices.Contains(n.Flags, flag) }

// Master reports whether the node is a master.
func (n ClusterNode) Master() bool { return n.Has("master") }

// Replica reports whether the node is a replica (flag slave).
func (n ClusterNode) Replica() bool { return n.Has("slave") }

// Failing reports whether the node asked sees the node as failing (fail?)
// or the cluster agrees it failed (fail).
func (n ClusterNode) Failing() bool { return n.Has("fail") || n.Has("fail?") }

// Usable reports whether clients can reach the node as the cluster
// describes it: it has an address and is neither failing nor still in the
// handshake that introduces it.
func (n ClusterNode) Usable() bool {
	return n.Addr != "" && !n.Failing() && !n.Has("handshake") && !n.Has("noaddr")
}

// ParseClusterNodes reads the reply of CLUSTER NODES, one node a line:
//
//	<id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state> <slot> ...
//
// A line with fewer than eight fields, an id given twice, or a malformed
// address, epoch or slot is an error. Slots being migrated or imported
// ([slot->-id], [slot-<-id]) are left out.
func ParseClusterNodes(text string) ([]ClusterNode, error) {
	text = strings.TrimPrefix(text, "txt:")
	var nodes []ClusterNode
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		n, err := parseClusterNode(line)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(nodes, func(o ClusterNode) bool { return o.ID == n.ID }) {
			return nil, fmt.Errorf("%w: CLUSTER NODES lists %s twice", ErrMalformed, n.ID)
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

func parseClusterNode(line string) (ClusterNode, error) {
	bad := func(what string) (ClusterNode, error) {
		return ClusterNode{}, fmt.Errorf("%w: CLUSTER NODES line %q: %s", ErrMalformed, line, what)
	}
	f := strings.Fields(line)
	if len(f) < 8 {
		return bad("fewer than 8 fields")
	}
	n := ClusterNode{ID: f[0], Connected: f[7] == "connected"}
	if f[7] != "connected" && f[7] != "disconnected" {
		return bad("link state " + f[7])
	}
	addr, aux, _ := strings.Cut(f[1], ",")
	if hostname, _, _ := strings.Cut(aux, ","); !strings.Contains(hostname, "=") {
		n.Hostname = hostname
	}
	addr, bus, hasBus := strings.Cut(addr, "@")
	// The host may be IPv6, written without brackets: the port follows
	// the last colon.
	colon := strings.LastIndexByte(addr, ':')
	if colon < 0 {
		return bad("address " + f[1])
	}
	host, port := addr[:colon], addr[colon+1:]
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return bad("address " + f[1])
	}
	if host != "" && port != "0" {
		n.Addr = net.JoinHostPort(host, port)
	}
	if hasBus {
		p, err := strconv.ParseUint(bus, 10, 16)
		if err != nil {
			return bad("bus port " + bus)
		}
		n.BusPort = int(p)
	}
	if f[2] != "noflags" {
		n.Flags = strings.Split(f[2], ",")
	}
	if f[3] != "-" {
		n.MasterID = f[3]
	}
	epoch, err := strconv.ParseInt(f[6], 10, 64)
	if err != nil || epoch < 0 {
		return bad("config epoch " + f[6])
	}
	n.ConfigEpoch = epoch
	for _, s := range f[8:] {
		if strings.HasPrefix(s, "[") {
			continue // migrating or importing
		}
		r, err := parseSlots(s)
		if err != nil {
			return bad(err.Error())
		}
		n.Slots = append(n.Slots, r)
	}
	return n, nil
}

// parseSlots reads "first-last" or a single "slot".
func parseSlots(s string) (SlotRange, error) {
	first, last, isRange := strings.Cut(s, "-")
	if !isRange {
		last = first
	}
	a, errA := strconv.Atoi(first)
	b, errB := strconv.Atoi(last)
	if errA != nil || errB != nil || a < 0 || a > b || b >= ClusterSlots {
		return SlotRange{}, fmt.Errorf("slots %q", s)
	}
	return SlotRange{First: a, Last: b}, nil
}
