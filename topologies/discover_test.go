package topologies

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/redisinfo"
)

// discoverTimeout bounds the waits for a topology to show a change: a
// cluster marks a killed node failed after its node timeout (2 s) and the
// others' agreement, slower on a loaded machine.
const discoverTimeout = 30 * time.Second

// discover is Discover, failing the test on an error.
func discover(t *testing.T, access Access, known []Node) []DataNode {
	t.Helper()
	nodes, err := Discover(testContext(t, 10*time.Second), access, known)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return nodes
}

// roles are the nodes as name/role, in order.
func roles(nodes []DataNode) []string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = n.Name + "/" + string(n.Role)
	}
	return s
}

// findNode is the node called name among nodes.
func findNode(nodes []DataNode, name string) (DataNode, bool) {
	i := slices.IndexFunc(nodes, func(n DataNode) bool { return n.Name == name })
	if i < 0 {
		return DataNode{}, false
	}
	return nodes[i], true
}

// discoveredNode is the node called name among nodes.
func discoveredNode(t *testing.T, nodes []DataNode, name string) DataNode {
	t.Helper()
	n, ok := findNode(nodes, name)
	if !ok {
		t.Fatalf("no %s among %v", name, roles(nodes))
	}
	return n
}

// waitDiscovered waits until Discover's nodes pass check.
func waitDiscovered(t *testing.T, access Access, known []Node, what string, check func([]DataNode) error) []DataNode {
	t.Helper()
	var nodes []DataNode
	err := waitFor(t.Context(), discoverTimeout, what, func(ctx context.Context) error {
		var err error
		if nodes, err = Discover(ctx, access, known); err != nil {
			return err
		}
		return check(nodes)
	})
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

// Discover on a cluster with replicas names every node with its role, a
// replica's master (by address and id), each node's id and a master's
// slots; after a Promote it reports the new roles, and it leaves out a
// killed node once the cluster sees it failed.
func TestDiscoverCluster(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:cluster?masters=3&replicas=1"})
	nodes := discover(t, l.Access(), l.Nodes())
	want := []string{"master-1/master", "master-2/master", "master-3/master", "replica-1/replica", "replica-2/replica", "replica-3/replica"}
	if got := roles(nodes); !slices.Equal(got, want) {
		t.Fatalf("Discover = %v; want %v", got, want)
	}
	covered := make([]int, clusterSlots)
	for _, n := range nodes {
		id, err := do(t, n.Endpoint.Addr, "CLUSTER", "MYID").ToString()
		if err != nil || n.ID != id || n.Endpoint.Addr != addrOf(t, l, n.Name) {
			t.Errorf("%s: id %s at %s; CLUSTER MYID says %s (%v), Nodes %s", n.Name, n.ID, n.Endpoint.Addr, id, err, addrOf(t, l, n.Name))
		}
		for _, r := range n.Slots {
			for s := r.First; s <= r.Last; s++ {
				covered[s]++
			}
		}
		if n.Role == RoleMaster && (n.Master != "" || n.MasterID != "" || len(n.Slots) == 0) {
			t.Errorf("master %+v: want slots and no master", n)
		}
		if n.Role != RoleReplica {
			continue
		}
		// Replica i follows master ((i-1) mod masters)+1.
		i, _ := strconv.Atoi(strings.TrimPrefix(n.Name, "replica-"))
		master := discoveredNode(t, nodes, fmt.Sprintf("master-%d", (i-1)%3+1))
		if n.Master != master.Endpoint.Addr || n.MasterID != master.ID || len(n.Slots) != 0 {
			t.Errorf("%s follows %s (%s); want %s (%s), and no slots", n.Name, n.Master, n.MasterID, master.Endpoint.Addr, master.ID)
		}
	}
	for s, c := range covered {
		if c != 1 {
			t.Fatalf("slot %d served by %d masters; want 1", s, c)
		}
	}
	// One seed, no names: the same nodes, by address.
	seed := Access{Mode: ModeCluster, Endpoints: []Endpoint{{Addr: addrOf(t, l, "replica-2")}}}
	bare := discover(t, seed, nil)
	for i, n := range bare {
		if n.Name != n.Endpoint.Addr || i >= len(nodes) || n.Role != nodes[i].Role || !slices.Contains(addrsOf(nodes), n.Name) {
			t.Errorf("from one seed, without names: %v; want %v by address", roles(bare), roles(nodes))
			break
		}
	}

	if err := l.Promote(t.Context(), "replica-1"); err != nil {
		t.Fatal(err)
	}
	newMaster := addrOf(t, l, "replica-1")
	waitDiscovered(t, l.Access(), l.Nodes(), "Discover to show replica-1 promoted", func(nodes []DataNode) error {
		r1, ok1 := findNode(nodes, "replica-1")
		m1, ok2 := findNode(nodes, "master-1")
		if !ok1 || !ok2 || r1.Role != RoleMaster || len(r1.Slots) == 0 || m1.Role != RoleReplica || m1.Master != newMaster || m1.MasterID != r1.ID {
			return fmt.Errorf("replica-1 %+v, master-1 %+v", r1, m1)
		}
		return nil
	})

	if err := l.Kill("replica-2"); err != nil {
		t.Fatal(err)
	}
	waitDiscovered(t, l.Access(), l.Nodes(), "Discover to leave the killed replica-2 out", func(nodes []DataNode) error {
		if got := roles(nodes); len(got) != 5 || slices.Contains(got, "replica-2/replica") {
			return fmt.Errorf("nodes %v", got)
		}
		return nil
	})
}

func addrsOf(nodes []DataNode) []string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = n.Endpoint.Addr
	}
	return s
}

// Under Sentinel, Discover and SentinelMaster report the master the
// sentinels name and its replicas, skipping a sentinel that does not
// answer; after a failover, the new master, with the others following it.
func TestDiscoverSentinel(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:sentinel?replicas=2&sentinels=3"})
	master := addrOf(t, l, "master")
	access := l.Access()
	closed := closedAddr(t)
	access.Endpoints = append([]Endpoint{{Addr: closed}}, access.Endpoints...)

	ep, err := SentinelMaster(testContext(t, 10*time.Second), access)
	if err != nil || ep.Addr != master {
		t.Errorf("SentinelMaster = %+v, %v; want %s", ep, err, master)
	}
	nodes := discover(t, access, l.Nodes())
	if got, want := roles(nodes), []string{"master/master", "replica-1/replica", "replica-2/replica"}; !slices.Equal(got, want) {
		t.Fatalf("Discover = %v; want %v", got, want)
	}
	for _, n := range nodes[1:] {
		if n.Master != master {
			t.Errorf("%s follows %s; want %s", n.Name, n.Master, master)
		}
	}
	if _, err := Discover(testContext(t, 10*time.Second), Access{MasterName: "lockbench", Endpoints: []Endpoint{{Addr: closed}}}, nil); err == nil || !strings.Contains(err.Error(), closed) {
		t.Errorf("with no sentinel answering: %v; want an error naming %s", err, closed)
	}

	if err := l.Promote(t.Context(), "replica-2"); err != nil {
		t.Fatal(err)
	}
	promoted := addrOf(t, l, "replica-2")
	if ep, err := SentinelMaster(testContext(t, 10*time.Second), access); err != nil || ep.Addr != promoted {
		t.Errorf("after the failover, SentinelMaster = %+v, %v; want %s", ep, err, promoted)
	}
	waitDiscovered(t, access, l.Nodes(), "Discover to show replica-2 the master, followed by the others", func(nodes []DataNode) error {
		if got, want := roles(nodes), []string{"replica-2/master", "master/replica", "replica-1/replica"}; !slices.Equal(got, want) {
			return fmt.Errorf("nodes %v, want %v", got, want)
		}
		for _, n := range nodes[1:] {
			if n.Master != promoted {
				return fmt.Errorf("%s follows %s", n.Name, n.Master)
			}
		}
		return nil
	})
}

// Without a cluster or Sentinel, Discover asks each endpoint: a master
// names its connected replicas, a replica its master; an endpoint that does
// not answer is named in the error, beside what the others said.
func TestDiscoverReplication(t *testing.T) {
	l := startLocal(t, Spec{Name: "local:replicated?replicas=2"})
	master := addrOf(t, l, "master")
	want := []string{"master/master", "replica-1/replica", "replica-2/replica"}
	nodes := discover(t, l.Access(), l.Nodes()) // the master alone
	if got := roles(nodes); !slices.Equal(got, want) {
		t.Errorf("from the master, Discover = %v; want %v", got, want)
	}
	all := Access{Mode: ModeSingle}
	for _, n := range slices.Backward(l.Nodes()) {
		all.Endpoints = append(all.Endpoints, n.Endpoint)
	}
	closed := closedAddr(t)
	all.Endpoints = append(all.Endpoints, Endpoint{Addr: closed})
	nodes, err := Discover(testContext(t, 10*time.Second), all, l.Nodes())
	if got := roles(nodes); !slices.Equal(got, want) || err == nil || !strings.Contains(err.Error(), closed) {
		t.Errorf("from every node and a closed port, Discover = %v, %v; want %v and an error naming %s", got, err, want, closed)
	}
	for _, n := range nodes[1:] {
		if n.Master != master {
			t.Errorf("%s follows %s; want %s", n.Name, n.Master, master)
		}
	}

	r := startLocal(t, Spec{Name: "local:redlock?nodes=3"})
	if got, want := roles(discover(t, r.Access(), r.Nodes())), []string{"node-1/master", "node-2/master", "node-3/master"}; !slices.Equal(got, want) {
		t.Errorf("independent masters: %v; want %v", got, want)
	}
}

// A NodeConn's Info is the node's INFO parsed: two servers have their own
// run_id, and a replica reports its master, its link up and, once it has
// caught up, the master's offset.
func TestNodeConnInfo(t *testing.T) {
	l := startLocal(t, Spec{Name: "local:replicated?replicas=1"})
	ctx := testContext(t, 20*time.Second)
	conns := map[string]*NodeConn{}
	for _, name := range []string{"master", "replica-1"} {
		c, err := DialNode(ctx, Endpoint{Addr: addrOf(t, l, name)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		conns[name] = c
	}
	if err := do(t, addrOf(t, l, "master"), "SET", "k", "v").Error(); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for name, c := range conns {
		info, err := c.Info(ctx, "server", "replication")
		if err != nil {
			t.Fatal(err)
		}
		id, err := info.Field("server", "run_id")
		if err != nil || len(id) != 40 {
			t.Errorf("%s: run_id %q, %v", name, id, err)
		}
		ids[id] = true
		if port, _ := info.Field("server", "tcp_port"); net.JoinHostPort("127.0.0.1", port) != c.Addr() {
			t.Errorf("%s: tcp_port %s; it is at %s", name, port, c.Addr())
		}
	}
	if len(ids) != 2 {
		t.Errorf("run_ids %v; want two", ids)
	}
	err := waitFor(ctx, discoverTimeout, "the replica to catch up", func(ctx context.Context) error {
		m, err := replicationOf(ctx, conns["master"])
		if err != nil {
			return err
		}
		r, err := replicationOf(ctx, conns["replica-1"])
		if err != nil {
			return err
		}
		if m.Role != "master" || len(m.Replicas) != 1 || m.Replicas[0].Addr != conns["replica-1"].Addr() || m.Offset == 0 {
			return fmt.Errorf("master %+v", m)
		}
		if r.Role != "replica" || r.MasterAddr != conns["master"].Addr() || !r.LinkUp || r.Offset != m.Offset {
			return fmt.Errorf("replica %+v, master at offset %d", r, m.Offset)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	if _, err := DialNode(ctx, Endpoint{Addr: closedAddr(t)}); err == nil {
		t.Error("DialNode to a closed port: no error")
	}
}

func replicationOf(ctx context.Context, c *NodeConn) (redisinfo.Replication, error) {
	info, err := c.Info(ctx, "replication")
	if err != nil {
		return redisinfo.Replication{}, err
	}
	return info.Replication()
}

// closedAddr is a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
