package topologies

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/lockbench/lockbench/redisinfo"
)

// checkRoles checks that Nodes and each node's ROLE give the roles of
// want, and that the sentinels, if any, report a master.
func checkRoles(t *testing.T, l *Local, when string, want map[string]Role) {
	t.Helper()
	redisRole := map[Role]string{RoleMaster: "master", RoleReplica: "slave"}
	for _, n := range l.Nodes() {
		role, ok := want[n.Name]
		if !ok {
			continue
		}
		if n.Role != role {
			t.Errorf("%s, Nodes() says %s is a %s; want %s", when, n.Name, n.Role, role)
		}
		if got := roleOf(t, n.Endpoint.Addr); got != redisRole[role] {
			t.Errorf("%s, ROLE of %s is %s; want %s", when, n.Name, got, redisRole[role])
		}
	}
	for _, n := range l.Nodes() {
		if n.Role != RoleSentinel {
			continue
		}
		addr, err := do(t, n.Endpoint.Addr, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "lockbench").AsStrSlice()
		if err != nil || len(addr) != 2 {
			t.Errorf("%s, %s says the master is %v, %v", when, n.Name, addr, err)
			continue
		}
		if m := l.nodeAt(addr[0] + ":" + addr[1]); m == nil || l.role(m) != RoleMaster {
			t.Errorf("%s, %s says the master is %v, not a master", when, n.Name, addr)
		}
	}
}

// checkWriteRead writes a key on the node clients use and reads it back.
func checkWriteRead(t *testing.T, l *Local) {
	addr := l.Access().Endpoints[0].Addr
	if err := do(t, addr, "SET", "k", "v").Error(); err != nil {
		t.Fatalf("SET on %s: %v", addr, err)
	}
	if v, err := do(t, addr, "GET", "k").ToString(); err != nil || v != "v" {
		t.Errorf("GET = %q, %v; want v", v, err)
	}
}

// checkReplicated checks that what is written on the master can be read
// on every replica, and that each replica follows the master.
func checkReplicated(t *testing.T, l *Local) {
	t.Helper()
	master := addrOf(t, l, "master")
	if err := do(t, master, "SET", "k", "from-master").Error(); err != nil {
		t.Fatalf("SET on the master: %v", err)
	}
	for _, n := range l.Nodes() {
		if n.Role != RoleReplica {
			continue
		}
		eventually(t, n.Name+" to have k", func() error {
			v, err := do(t, n.Endpoint.Addr, "GET", "k").ToString()
			if err != nil || v != "from-master" {
				return fmt.Errorf("GET k on %s = %q, %v", n.Name, v, err)
			}
			return nil
		})
		if err := do(t, n.Endpoint.Addr, "SET", "k", "x").Error(); err == nil || !strings.Contains(err.Error(), "READONLY") {
			t.Errorf("SET on %s: %v; want READONLY", n.Name, err)
		}
	}
}

// checkSentinel checks that every sentinel reports the master and that
// the data replicates.
func checkSentinel(t *testing.T, l *Local) {
	t.Helper()
	master := addrOf(t, l, "master")
	for _, n := range l.Nodes() {
		if n.Role != RoleSentinel {
			continue
		}
		addr, err := do(t, n.Endpoint.Addr, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "lockbench").AsStrSlice()
		if err != nil || strings.Join(addr, ":") != master {
			t.Errorf("%s says the master is %v, %v; want %s", n.Name, addr, err, master)
		}
		if err := do(t, n.Endpoint.Addr, "SENTINEL", "CKQUORUM", "lockbench").Error(); err != nil {
			t.Errorf("%s: CKQUORUM: %v", n.Name, err)
		}
	}
	checkReplicated(t, l)
}

// checkCluster checks that every node says the cluster is ok, that the
// slots are covered once each by the masters, and that each replica
// follows the master it should.
func checkCluster(t *testing.T, l *Local) {
	t.Helper()
	var masters []string
	for _, n := range l.Nodes() {
		info, err := do(t, n.Endpoint.Addr, "CLUSTER", "INFO").ToString()
		if err != nil || clusterInfo(info, "cluster_state") != "ok" || clusterInfo(info, "cluster_slots_assigned") != "16384" {
			t.Errorf("CLUSTER INFO on %s: %q, %v; want state ok, 16384 slots", n.Name, info, err)
		}
		if n.Role == RoleMaster {
			masters = append(masters, n.Endpoint.Addr)
		}
	}
	slots, err := do(t, masters[0], "CLUSTER", "SLOTS").ToArray()
	if err != nil {
		t.Fatalf("CLUSTER SLOTS: %v", err)
	}
	covered := make([]int, clusterSlots)
	for _, s := range slots {
		r, err := s.ToArray()
		if err != nil || len(r) < 3 {
			t.Fatalf("CLUSTER SLOTS entry %v: %v", r, err)
		}
		first, _ := r[0].AsInt64()
		last, _ := r[1].AsInt64()
		owner, _ := r[2].ToArray()
		var host string
		var port int64
		if len(owner) >= 2 {
			host, _ = owner[0].ToString()
			port, _ = owner[1].AsInt64()
		}
		if by := fmt.Sprintf("%s:%d", host, port); !slices.Contains(masters, by) {
			t.Errorf("slots %d-%d served by %s, not a master", first, last, by)
		}
		for i := first; i <= last; i++ {
			covered[i]++
		}
	}
	for i, c := range covered {
		if c != 1 {
			t.Fatalf("slot %d covered %d times; want once", i, c)
		}
	}
	checkConfigEpochs(t, l)
	// Replica i follows master ((i-1) mod masters)+1.
	for _, n := range l.Nodes() {
		if n.Role != RoleReplica {
			continue
		}
		i, _ := strconv.Atoi(strings.TrimPrefix(n.Name, "replica-"))
		want := addrOf(t, l, fmt.Sprintf("master-%d", (i-1)%len(masters)+1))
		a, _ := dialAdmin(n.Endpoint.Addr)
		_, got, err := a.role(t.Context())
		a.Close()
		if err != nil || got != want {
			t.Errorf("%s follows %s, %v; want %s", n.Name, got, err, want)
		}
	}
}

// clusterInfo is the value of field in CLUSTER INFO's reply, "" when it
// is not there.
func clusterInfo(info, field string) string {
	v, _ := redisinfo.Field(info, "", field)
	return v
}

// checkIndependent checks that a key set on one node is absent on the
// others.
func checkIndependent(t *testing.T, l *Local) {
	t.Helper()
	nodes := l.Nodes()
	if err := do(t, nodes[0].Endpoint.Addr, "SET", "k", "only-here").Error(); err != nil {
		t.Fatalf("SET on %s: %v", nodes[0].Name, err)
	}
	for _, n := range nodes[1:] {
		if err := do(t, n.Endpoint.Addr, "GET", "k").Error(); !rueidis.IsRedisNil(err) {
			t.Errorf("GET k on %s: %v; want nil (the nodes are independent)", n.Name, err)
		}
	}
}

// checkConfigEpochs checks that every node sees master-i at config epoch
// i, the epoch the start gave it: no master's epoch is left to be agreed
// by collision after the start (a replica cut off from its master before
// its master's bump would ask for votes with an epoch that is denied).
func checkConfigEpochs(t *testing.T, l *Local) {
	t.Helper()
	for _, n := range l.Nodes() {
		a, err := dialAdmin(n.Endpoint.Addr)
		if err != nil {
			t.Fatal(err)
		}
		view, err := a.clusterNodes(t.Context())
		a.Close()
		if err != nil {
			t.Fatalf("CLUSTER NODES on %s: %v", n.Name, err)
		}
		for _, m := range l.byRole(RoleMaster) {
			want, _ := strconv.Atoi(strings.TrimPrefix(m.Name, "master-"))
			for _, v := range view {
				if v.Addr == m.announced() && !v.Replica() && v.ConfigEpoch != int64(want) {
					t.Errorf("%s sees %s at config epoch %d; want %d, set at the start", n.Name, m.Name, v.ConfigEpoch, want)
				}
			}
		}
	}
}
