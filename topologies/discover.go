package topologies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/redisinfo"
)

// DataNode is a node that holds data — a master or a replica — with the
// role its topology reports for it now.
type DataNode struct {
	// Node is the node. Its Name is its name in the topology's Nodes, or
	// its address when they do not list it; its Role is RoleMaster or
	// RoleReplica as reported now, not as started; its Endpoint is the
	// listed node's, or that of the endpoint that named it (same
	// credentials and TLS) at the node's address.
	Node
	// Master is a replica's master's address; "" for a master.
	Master string `json:"master,omitempty"`
	// ID is the node's id in a cluster, and MasterID a replica's master's
	// id; "" outside a cluster.
	ID       string `json:"id,omitempty"`
	MasterID string `json:"master_id,omitempty"`
	// Slots are the hash slots a cluster master serves.
	Slots []redisinfo.SlotRange `json:"slots,omitempty"`
}

// Discover asks the topology that access reaches which data nodes it has
// now and with which roles, and names them after known (a topology's
// Nodes; with nil, every node is named by its address):
//
//   - a cluster: CLUSTER NODES on the first endpoint that answers: the
//     masters with their slots and the replicas with their masters,
//     without those it sees failing or still in the handshake;
//   - under Sentinel (MasterName set): the master that the first sentinel
//     to answer names, as clients find it, and the replicas it lists,
//     without those it sees down or disconnected;
//   - otherwise (a single node, a replicated one, independent masters):
//     INFO replication on every endpoint: the endpoint with the role it
//     reports, and a master's connected replicas.
//
// The nodes come masters first, then replicas, each in the order of known
// and then by address. Asking every endpoint, it returns the nodes found
// and an error naming the endpoints that did not answer; asking the first
// that answers, an error when none did.
func Discover(ctx context.Context, access Access, known []Node) ([]DataNode, error) {
	if len(access.Endpoints) == 0 {
		return nil, fmt.Errorf("%w: discover: no endpoint to ask", ErrBadSpec)
	}
	var nodes []DataNode
	var err error
	switch {
	case access.Mode == ModeCluster:
		nodes, err = firstAnswer(ctx, access.Endpoints, "no cluster node answered CLUSTER NODES", discoverCluster)
	case access.MasterName != "":
		nodes, err = firstAnswer(ctx, access.Endpoints, fmt.Sprintf("no sentinel named master %q", access.MasterName),
			func(ctx context.Context, s *NodeConn, ep Endpoint) ([]DataNode, error) {
				return discoverSentinel(ctx, s, ep, access.MasterName)
			})
	default:
		nodes, err = discoverReplication(ctx, access.Endpoints)
	}
	nameAfter(nodes, known)
	return nodes, err
}

// SentinelMaster asks the sentinels of access in turn where the master
// they monitor under access.MasterName is, and returns the first answer as
// the endpoint clients connect to: the sentinel's, at the master's
// address.
func SentinelMaster(ctx context.Context, access Access) (Endpoint, error) {
	if access.MasterName == "" || len(access.Endpoints) == 0 {
		return Endpoint{}, fmt.Errorf("%w: no sentinel and master name to ask", ErrBadSpec)
	}
	return firstAnswer(ctx, access.Endpoints, fmt.Sprintf("no sentinel named master %q", access.MasterName),
		func(ctx context.Context, s *NodeConn, ep Endpoint) (Endpoint, error) {
			addr, err := s.sentinelMaster(ctx, access.MasterName)
			return at(ep, addr), err
		})
}

// firstAnswer asks the node at each endpoint in turn with ask, and returns
// the first answer; when none answers, the error none says so, with the
// error of each.
func firstAnswer[T any](ctx context.Context, endpoints []Endpoint, none string,
	ask func(context.Context, *NodeConn, Endpoint) (T, error)) (T, error) {
	var errs []error
	for _, ep := range endpoints {
		answer, err := askNode(ctx, ep, ask)
		if err == nil {
			return answer, nil
		}
		errs = append(errs, err)
	}
	var zero T
	return zero, fmt.Errorf("topologies: %s: %w", none, errors.Join(errs...))
}

// askNode connects to the node at ep, asks it with ask and disconnects.
func askNode[T any](ctx context.Context, ep Endpoint, ask func(context.Context, *NodeConn, Endpoint) (T, error)) (T, error) {
	c, err := DialNode(ctx, ep)
	if err != nil {
		var zero T
		return zero, err
	}
	defer c.Close()
	return ask(ctx, c, ep)
}

// discoverCluster reads the data nodes from CLUSTER NODES on the node at
// seed.
func discoverCluster(ctx context.Context, c *NodeConn, seed Endpoint) ([]DataNode, error) {
	view, err := c.clusterNodes(ctx)
	if err != nil {
		return nil, err
	}
	addrOf := make(map[string]string, len(view))
	for i, n := range view {
		if n.Has("myself") && n.Addr == "" { // it has not learnt its own address yet
			view[i].Addr = seed.Addr
		}
		addrOf[n.ID] = view[i].Addr
	}
	var nodes []DataNode
	for _, n := range view {
		if !n.Usable() || !n.Master() && !n.Replica() {
			continue
		}
		d := DataNode{Node: Node{Role: RoleMaster, Endpoint: at(seed, n.Addr)}, ID: n.ID, Slots: n.Slots}
		if n.Replica() {
			d.Role, d.MasterID, d.Master = RoleReplica, n.MasterID, addrOf[n.MasterID]
		}
		nodes = append(nodes, d)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("CLUSTER NODES on %s names no usable node", c.addr)
	}
	return nodes, nil
}

// discoverSentinel asks the sentinel at s for the master it monitors under
// name and for the master's replicas that it sees up.
func discoverSentinel(ctx context.Context, s *NodeConn, sentinel Endpoint, name string) ([]DataNode, error) {
	master, err := s.sentinelMaster(ctx, name)
	if err != nil {
		return nil, err
	}
	replicas, err := s.sentinelList(ctx, "REPLICAS", name)
	if err != nil {
		return nil, err
	}
	nodes := []DataNode{{Node: Node{Role: RoleMaster, Endpoint: at(sentinel, master)}}}
	for _, r := range replicas {
		flags := strings.Split(r["flags"], ",")
		if r["ip"] == "" || r["port"] == "" || slices.ContainsFunc(flags, func(f string) bool {
			return f == "s_down" || f == "o_down" || f == "disconnected"
		}) {
			continue
		}
		follows := master // the master it should follow, until it says which it does
		if host, port := r["master-host"], r["master-port"]; host != "" && host != "?" && port != "" {
			follows = net.JoinHostPort(host, port)
		}
		addr := net.JoinHostPort(r["ip"], r["port"])
		nodes = append(nodes, DataNode{Node: Node{Role: RoleReplica, Endpoint: at(sentinel, addr)}, Master: follows})
	}
	return nodes, nil
}

// discoverReplication asks every endpoint for its INFO replication.
func discoverReplication(ctx context.Context, endpoints []Endpoint) ([]DataNode, error) {
	var nodes []DataNode
	var errs []error
	add := func(d DataNode) {
		i := slices.IndexFunc(nodes, func(n DataNode) bool { return n.Endpoint.Addr == d.Endpoint.Addr })
		switch {
		case i < 0:
			nodes = append(nodes, d)
		case d.Role == RoleReplica && d.Master != "": // the replica's own word over its master's
			nodes[i] = d
		}
	}
	for _, ep := range endpoints {
		r, err := askNode(ctx, ep, func(ctx context.Context, c *NodeConn, _ Endpoint) (redisinfo.Replication, error) {
			info, err := c.Info(ctx, "replication")
			if err != nil {
				return redisinfo.Replication{}, err
			}
			r, err := info.Replication()
			if err != nil {
				return redisinfo.Replication{}, fmt.Errorf("INFO on %s: %w", c.addr, err)
			}
			return r, nil
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r.Role == "replica" {
			add(DataNode{Node: Node{Role: RoleReplica, Endpoint: ep}, Master: r.MasterAddr})
			continue
		}
		add(DataNode{Node: Node{Role: RoleMaster, Endpoint: ep}})
		for _, replica := range r.Replicas {
			add(DataNode{Node: Node{Role: RoleReplica, Endpoint: at(ep, replica.Addr)}, Master: ep.Addr})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nodes, fmt.Errorf("topologies: discover: %w", err)
	}
	return nodes, nil
}

// nameAfter names the nodes after the known ones at their addresses —
// their own, or those they announce, which is what a topology with proxies
// on its links reports — and gives them the known ones' endpoints; it
// names the others by address, and orders them masters first, then
// replicas, each in the order of known, then by address.
func nameAfter(nodes []DataNode, known []Node) {
	index := func(d DataNode) int {
		i := slices.IndexFunc(known, func(k Node) bool {
			return k.At(d.Endpoint.Addr)
		})
		if i < 0 {
			return len(known)
		}
		return i
	}
	rank := map[Role]int{RoleMaster: 0, RoleReplica: 1}
	slices.SortStableFunc(nodes, func(a, b DataNode) int {
		return cmp.Or(cmp.Compare(rank[a.Role], rank[b.Role]), cmp.Compare(index(a), index(b)),
			cmp.Compare(a.Endpoint.Addr, b.Endpoint.Addr))
	})
	for i, d := range nodes {
		if k := index(d); k < len(known) {
			nodes[i].Name, nodes[i].Endpoint = known[k].Name, known[k].Endpoint
		} else {
			nodes[i].Name = d.Endpoint.Addr
		}
	}
}

// at is ep at addr: the same credentials and TLS, another node.
func at(ep Endpoint, addr string) Endpoint {
	ep.Addr = addr
	return ep
}
