package topologies

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// startLocal starts the topology for the test and closes it when the test
// ends. Without redis-server the test fails saying how to install it.
func startLocal(t testing.TB, spec Spec) *Local {
	t.Helper()
	l, err := StartLocal(testContext(t, 60*time.Second), spec)
	if errors.Is(err, ErrNoRedisServer) {
		t.Fatalf("this test needs a real redis-server: %v", err)
	}
	if err != nil {
		t.Fatalf("StartLocal(%s): %v", spec.Name, err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// do sends one command to the node at addr.
func do(t testing.TB, addr string, args ...string) rueidis.RedisResult {
	t.Helper()
	a, err := dialAdmin(addr)
	if err != nil {
		t.Fatalf("%v", err)
	}
	defer a.Close()
	return a.do(t.Context(), args...)
}

// addrOf is the address of the node called name.
func addrOf(t testing.TB, l *Local, name string) string {
	t.Helper()
	for _, n := range l.Nodes() {
		if n.Name == name {
			return n.Endpoint.Addr
		}
	}
	t.Fatalf("%s has no node %q", l.Name(), name)
	return ""
}

// roleOf is what ROLE says the node at addr is.
func roleOf(t testing.TB, addr string) string {
	t.Helper()
	reply, err := do(t, addr, "ROLE").ToArray()
	if err != nil || len(reply) == 0 {
		t.Fatalf("ROLE on %s: %v %v", addr, reply, err)
	}
	role, _ := reply[0].ToString()
	return role
}

// eventually retries check for up to 10 s.
func eventually(t testing.TB, what string, check func() error) {
	t.Helper()
	if err := waitFor(t.Context(), 10*time.Second, what, func(context.Context) error { return check() }); err != nil {
		t.Fatal(err)
	}
}

type wantNode struct {
	name string
	role Role
}

// numbered is prefix-1..prefix-n, all of role.
func numbered(prefix string, n int, role Role) []wantNode {
	nodes := make([]wantNode, n)
	for i := range nodes {
		nodes[i] = wantNode{fmt.Sprintf("%s-%d", prefix, i+1), role}
	}
	return nodes
}

func TestLocalTopologies(t *testing.T) {
	master := []wantNode{{"master", RoleMaster}}
	tests := []struct {
		name   string
		nodes  []wantNode
		mode   Mode
		access []string // the nodes Access gives, in order
		check  func(t *testing.T, l *Local)
		// promote is a replica to Promote, and after is the roles then.
		promote string
		after   map[string]Role
	}{
		{name: "local:single", nodes: master, mode: ModeSingle, access: []string{"master"}, check: checkWriteRead},
		{
			name:   "local:replicated?replicas=2",
			nodes:  append(master, numbered("replica", 2, RoleReplica)...),
			mode:   ModeSingle,
			access: []string{"master"},
			check:  checkReplicated,
			// The old master stays a master: REPLICAOF NO ONE alone.
			promote: "replica-1", after: map[string]Role{"replica-1": RoleMaster, "master": RoleMaster, "replica-2": RoleReplica},
		},
		{
			name:   "local:sentinel?replicas=2&sentinels=3",
			nodes:  slices.Concat(master, numbered("replica", 2, RoleReplica), numbered("sentinel", 3, RoleSentinel)),
			mode:   ModeSingle,
			access: []string{"sentinel-1", "sentinel-2", "sentinel-3"},
			check:  checkSentinel,
			// replica-2, so that Sentinel has to be steered to it.
			promote: "replica-2", after: map[string]Role{"replica-2": RoleMaster, "master": RoleReplica, "replica-1": RoleReplica},
		},
		{
			name:   "local:cluster?masters=3&replicas=0",
			nodes:  numbered("master", 3, RoleMaster),
			mode:   ModeCluster,
			access: []string{"master-1", "master-2", "master-3"},
			check:  checkCluster,
		},
		{
			name:    "local:cluster?masters=3&replicas=1",
			nodes:   append(numbered("master", 3, RoleMaster), numbered("replica", 3, RoleReplica)...),
			mode:    ModeCluster,
			access:  []string{"master-1", "master-2", "master-3"},
			check:   checkCluster,
			promote: "replica-2", after: map[string]Role{"replica-2": RoleMaster, "master-2": RoleReplica, "replica-1": RoleReplica},
		},
		{
			name:   "local:redlock?nodes=5",
			nodes:  numbered("node", 5, RoleMaster),
			mode:   ModeIndependent,
			access: []string{"node-1", "node-2", "node-3", "node-4", "node-5"},
			check:  checkIndependent,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := startLocal(t, Spec{Name: tc.name})
			t.Cleanup(func() { dumpLogs(t, l) }) // before Close removes them
			if l.Name() != tc.name || !l.Managed() || !l.Representative() || l.StartupTime() <= 0 {
				t.Errorf("name %q, managed %v, representative %v, startup %v; want %q, true, true, > 0", l.Name(), l.Managed(), l.Representative(), l.StartupTime(), tc.name)
			}
			t.Logf("%s started in %v", tc.name, l.StartupTime())
			checkNodes(t, l, tc.nodes)

			access := l.Access()
			var want []string
			for _, name := range tc.access {
				want = append(want, addrOf(t, l, name))
			}
			var got []string
			for _, ep := range access.Endpoints {
				got = append(got, ep.Addr)
			}
			wantMaster := ""
			if strings.HasPrefix(tc.name, "local:sentinel") {
				wantMaster = "lockbench"
			}
			if access.Mode != tc.mode || !slices.Equal(got, want) || access.MasterName != wantMaster {
				t.Errorf("Access() = %s %v %q; want %s %v %q", access.Mode, got, access.MasterName, tc.mode, want, wantMaster)
			}
			tc.check(t, l)
			checkUnknownNode(t, l)

			if tc.promote != "" {
				if err := l.Promote(t.Context(), "master-1-of-nothing"); !errors.Is(err, ErrNoNode) {
					t.Errorf("Promote(unknown) = %v; want ErrNoNode", err)
				}
				if err := l.Promote(t.Context(), tc.nodes[0].name); err == nil || errors.Is(err, ErrNoNode) {
					t.Errorf("Promote(%s), a master: %v; want an error saying it is not a replica", tc.nodes[0].name, err)
				}
				began := time.Now()
				if err := l.Promote(t.Context(), tc.promote); err != nil {
					t.Fatalf("Promote(%s): %v", tc.promote, err)
				}
				t.Logf("Promote(%s) took %v", tc.promote, time.Since(began))
				if role := roleOf(t, addrOf(t, l, tc.promote)); role != "master" {
					t.Errorf("after Promote(%s), its ROLE is %s; want master", tc.promote, role)
				}
				checkRoles(t, l, "after Promote("+tc.promote+")", tc.after)
				// With Sentinel and in a cluster the old master follows the
				// new one at once, and can be promoted back.
				for name, role := range tc.after {
					if role != RoleReplica || !strings.HasPrefix(name, "master") {
						continue
					}
					if err := l.Promote(t.Context(), name); err != nil {
						t.Fatalf("Promote(%s) back: %v", name, err)
					}
					back := map[string]Role{name: RoleMaster, tc.promote: RoleReplica}
					checkRoles(t, l, "after Promote("+name+") back", back)
				}
			}
			checkClose(t, l)
		})
	}
}

// checkNodes checks the nodes' names, roles and addresses, and that each
// answers PING.
func checkNodes(t *testing.T, l *Local, want []wantNode) {
	t.Helper()
	nodes := l.Nodes()
	seen := map[string]bool{}
	for i, n := range nodes {
		if i >= len(want) || n.Name != want[i].name || n.Role != want[i].role {
			t.Errorf("node %d: %s %s; want %v", i, n.Name, n.Role, want)
		}
		if !strings.HasPrefix(n.Endpoint.Addr, "127.0.0.1:") || strings.HasSuffix(n.Endpoint.Addr, ":6379") || seen[n.Endpoint.Addr] {
			t.Errorf("node %s on %s; want its own free 127.0.0.1 port", n.Name, n.Endpoint.Addr)
		}
		seen[n.Endpoint.Addr] = true
		if err := ping(t.Context(), n.Endpoint.Addr); err != nil {
			t.Errorf("PING %s (%s): %v", n.Name, n.Endpoint.Addr, err)
		}
		if l.PID(n.Name) <= 0 {
			t.Errorf("PID(%s) = %d", n.Name, l.PID(n.Name))
		}
	}
	if len(nodes) != len(want) {
		t.Errorf("%d nodes; want %d", len(nodes), len(want))
	}
}

// checkUnknownNode checks that every Controller method fails with
// ErrNoNode for a name not in the topology.
func checkUnknownNode(t *testing.T, l *Local) {
	t.Helper()
	for what, err := range map[string]error{
		"Pause":   l.Pause("nope"),
		"Resume":  l.Resume("nope"),
		"Kill":    l.Kill("nope"),
		"Restart": l.Restart(t.Context(), "nope", 0),
		"Promote": l.Promote(t.Context(), "nope"),
	} {
		if !errors.Is(err, ErrNoNode) || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("%s(nope) = %v; want ErrNoNode naming it", what, err)
		}
	}
	if pid := l.PID("nope"); pid != 0 {
		t.Errorf("PID(nope) = %d; want 0", pid)
	}
}

// checkClose closes the topology and checks that every process is gone
// and every directory removed, and that a second Close returns at once.
func checkClose(t *testing.T, l *Local) {
	t.Helper()
	dumpLogs(t, l)
	var pids []int
	var dirs []string
	for _, n := range l.Nodes() {
		pids = append(pids, l.PID(n.Name))
		dir := mustNode(t, l, n.Name).proc.dir
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s's directory: %v", n.Name, err)
		}
		dirs = append(dirs, dir)
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for i, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("after Close, kill(%d, 0) = %v; want ESRCH (process gone)", pid, err)
		}
		if _, err := os.Stat(dirs[i]); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after Close, %s: %v; want it removed", dirs[i], err)
		}
	}
	if len(l.Nodes()) != 0 {
		t.Errorf("after Close, Nodes() = %v; want none", l.Nodes())
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// dumpLogs logs the end of every node's log when the test has failed.
func dumpLogs(t testing.TB, l *Local) {
	if !t.Failed() {
		return
	}
	for _, n := range l.Nodes() {
		b, err := os.ReadFile(mustNode(t, l, n.Name).proc.logFile)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		t.Logf("%s (%s) log, %v; last lines:\n%s", n.Name, n.Endpoint.Addr, err, strings.Join(lines[max(0, len(lines)-25):], "\n"))
	}
}

func mustNode(t testing.TB, l *Local, name string) *localNode {
	t.Helper()
	n, err := l.node(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
