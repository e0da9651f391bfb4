package topologies

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/redisinfo"
)

// clusterSlots is the number of hash slots of a Redis Cluster.
const clusterSlots = redisinfo.ClusterSlots

// clusterConfig is the config of every node of local:cluster. The bus
// port is a second free port (cluster-port), not port+10000, which may be
// taken or beyond 65535. A node that does not answer for a second
// (cluster-node-timeout) is failing: the cluster promotes a killed or
// paused master's replica about 2.3 s after, so that a promotion fits in a
// cell (measured; with 2 s, 3.2-3.8 s).
var clusterConfig = []string{
	"cluster-enabled yes",
	"cluster-config-file nodes.conf",
	"cluster-node-timeout 1000",
}

// startCluster starts master-1..master-N with the slots spread evenly and
// replica-1..replica-N×R, replica i following master ((i-1) mod N)+1,
// introduces them to each other, and waits until every node sees the
// cluster whole and ok and every replica is in sync.
func (l *Local) startCluster(ctx context.Context, params map[string]int) error {
	masters, replicas := params["masters"], params["masters"]*params["replicas"]
	specs := make([]nodeSpec, 0, masters+replicas)
	for i := range masters {
		specs = append(specs, nodeSpec{name: fmt.Sprintf("master-%d", i+1), role: RoleMaster})
	}
	for i := range replicas {
		specs = append(specs, nodeSpec{name: fmt.Sprintf("replica-%d", i+1), role: RoleReplica})
	}
	for i := range specs {
		specs[i].cfg = nodeConfig{cluster: true, extra: clusterConfig}
	}
	nodes, err := l.startNodes(ctx, specs...)
	if err != nil {
		return err
	}
	conns, err := dialAll(addrs(nodes))
	if err != nil {
		return err
	}
	defer closeAll(conns)

	// No automatic failover while the cluster starts: in a loaded run (5
	// December) a node that CLUSTER REPLICATE had made a replica reported
	// itself a master until the start gave up 30 s later
	// ("master_link_status:" empty), which only a failover does; a master
	// busy past the node timeout (1 s), forking for its replica's first
	// sync, can lose its slots that way. Set at run time, and back once
	// the replicas are in sync, so that the cluster, and a node restarted
	// later, fails over as configured.
	ids := make([]string, len(nodes))
	for i, a := range conns {
		if err := a.exec(ctx, "CONFIG", "SET", "cluster-replica-no-failover", "yes"); err != nil {
			return err
		}
		if ids[i], err = a.text(ctx, "CLUSTER", "MYID"); err != nil {
			return err
		}
	}
	// Each node its own config epoch before it meets the others, as
	// redis-cli --cluster create does: masters that start at epoch 0 agree
	// on distinct epochs later, by collision, one bump per ping, and a
	// replica cut off from its master before the master's bump asks for
	// votes with the old epoch, which the other masters deny for as long
	// as it asks (seen on a loaded CI run: a forced failover of replica-1,
	// 5 s after its link to master-1 was cut, never completed).
	for i, a := range conns {
		if err := a.exec(ctx, "CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1)); err != nil {
			return err
		}
	}
	for i := range masters {
		first, last := i*clusterSlots/masters, (i+1)*clusterSlots/masters-1
		if err := conns[i].exec(ctx, "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(first), strconv.Itoa(last)); err != nil {
			return err
		}
	}
	for _, n := range nodes[1:] {
		host, port, _ := net.SplitHostPort(n.announced())
		if err := conns[0].exec(ctx, "CLUSTER", "MEET", host, port, strconv.Itoa(l.busAnnounced(n))); err != nil {
			return err
		}
	}
	for r := range replicas {
		a, masterID := conns[masters+r], ids[r%masters]
		what := fmt.Sprintf("%s to learn of %s", nodes[masters+r].Name, nodes[r%masters].Name)
		err := waitFor(ctx, readyTimeout, what, func(ctx context.Context) error {
			view, err := a.clusterNodes(ctx)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(view, func(n redisinfo.ClusterNode) bool { return n.ID == masterID }) {
				l.meetMissing(ctx, a, view, nodes)
				return fmt.Errorf("%s does not know node %s yet", a.addr, masterID)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := a.exec(ctx, "CLUSTER", "REPLICATE", masterID); err != nil {
			return err
		}
	}
	err = waitFor(ctx, readyTimeout, "every cluster node to see the cluster ok and whole", func(ctx context.Context) error {
		for _, a := range conns {
			if err := l.readyOrMeet(ctx, a, nodes, replicas); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := waitInSync(ctx, nodes[masters:]); err != nil {
		return err
	}
	for _, a := range conns {
		if err := a.exec(ctx, "CONFIG", "SET", "cluster-replica-no-failover", "no"); err != nil {
			return err
		}
	}
	return nil
}

// readyOrMeet checks that the node at a is ready (clusterReady) and, when
// it is not, has it meet the nodes it lacks.
func (l *Local) readyOrMeet(ctx context.Context, a *NodeConn, nodes []*localNode, replicas int) error {
	view, err := clusterReady(ctx, a, len(nodes), replicas)
	if err != nil && view != nil {
		l.meetMissing(ctx, a, view, nodes)
	}
	return err
}

// meetMissing has the node at a, which sees view, meet every node of
// nodes whose address view lacks. A node in handshake has its address in
// view: it is not met again while the handshake lasts. Under load a
// handshake can outlast cluster-node-timeout, and the node that began it
// then forgets the other; gossip brings it back in its own time, which
// was once more than the 30 s a start waits (CI, 5 December: "knows 5
// nodes (2 replicas), want 6 (3)").
func (l *Local) meetMissing(ctx context.Context, a *NodeConn, view []redisinfo.ClusterNode, nodes []*localNode) {
	for _, n := range nodes {
		addr := n.announced()
		if n.Endpoint.Addr == a.addr || slices.ContainsFunc(view, func(v redisinfo.ClusterNode) bool { return v.Addr == addr }) {
			continue
		}
		host, port, _ := net.SplitHostPort(addr)
		_ = a.exec(ctx, "CLUSTER", "MEET", host, port, strconv.Itoa(l.busAnnounced(n))) // the next check says whether it took
	}
}

// clusterReady checks that the node at a reports cluster_state:ok and
// knows every node, none failing or in handshake, and the replicas as
// replicas. It returns the nodes a knows, nil when it could not ask.
func clusterReady(ctx context.Context, a *NodeConn, nodes, replicas int) ([]redisinfo.ClusterNode, error) {
	view, err := a.clusterNodes(ctx)
	if err != nil {
		return nil, err
	}
	info, err := a.text(ctx, "CLUSTER", "INFO")
	if err != nil {
		return view, err
	}
	if state, _ := redisinfo.Field(info, "", "cluster_state"); state != "ok" {
		return view, fmt.Errorf("%s: cluster_state:%s", a.addr, state)
	}
	slaves := 0
	for _, n := range view {
		if n.Replica() {
			slaves++
		}
		if n.Failing() || n.Has("handshake") || n.Has("noaddr") {
			return view, fmt.Errorf("%s sees %s as %s", a.addr, cmp.Or(n.Addr, n.ID), strings.Join(n.Flags, ","))
		}
	}
	if len(view) != nodes || slaves != replicas {
		return view, fmt.Errorf("%s knows %d nodes (%d replicas), want %d (%d)", a.addr, len(view), slaves, nodes, replicas)
	}
	return view, nil
}

// clusterNodes sends CLUSTER NODES and parses the reply.
func (a *NodeConn) clusterNodes(ctx context.Context) ([]redisinfo.ClusterNode, error) {
	text, err := a.text(ctx, "CLUSTER", "NODES")
	if err != nil {
		return nil, err
	}
	nodes, err := redisinfo.ParseClusterNodes(text)
	if err != nil {
		return nil, fmt.Errorf("CLUSTER NODES on %s: %w", a.addr, err)
	}
	return nodes, nil
}
