package faults

import (
	"bufio"
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// startLinked starts a local topology with a Network on its links; without
// redis-server the test fails saying how to install it.
func startLinked(t *testing.T, name string, groups ...string) (*topologies.Local, *Network) {
	t.Helper()
	n := NewNetwork(groups)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	l, err := topologies.StartLocal(ctx, topologies.Spec{Name: name, Proxies: n})
	if errors.Is(err, topologies.ErrNoRedisServer) {
		t.Fatalf("this test needs a real redis-server: %v", err)
	}
	if err != nil {
		n.Close()
		t.Fatal(err)
	}
	n.Use(l)
	t.Cleanup(func() {
		n.Close()
		_ = l.Close()
	})
	return l, n
}

// nodeAddr is the own address of the node called name.
func nodeAddr(t *testing.T, l *topologies.Local, name string) string {
	t.Helper()
	for _, n := range l.Nodes() {
		if n.Name == name {
			return n.Endpoint.Addr
		}
	}
	t.Fatalf("no node %s", name)
	return ""
}

// pingAs sends PING to the node at addr as a client of group, and reports
// whether PONG came back within wait.
func pingAs(t *testing.T, n *Network, group, addr string, wait time.Duration) bool {
	t.Helper()
	c, err := n.Dialer(group)(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// command sends an inline command to the node at addr directly (on no
// link) and returns the reply's first line, and for a bulk string its
// second.
func command(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(strings.Join(args, " ") + "\r\n")); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "$") || line == "$-1\r\n" {
		return strings.TrimSpace(line), err
	}
	value, err := r.ReadString('\n')
	return strings.TrimSpace(value), err
}

// A partition between the master and its replica stops replication, and
// only that: the clients still reach both; after the heal the replica
// catches up.
func TestPartitionCutsReplication(t *testing.T) {
	topotest.Faulted(t)
	l, n := startLinked(t, "local:replicated?replicas=1", GroupClients)
	master, replica := nodeAddr(t, l, "master"), nodeAddr(t, l, "replica-1")
	cut := mustParse(t, "at=0s partition sides=master|replicas")
	if err := n.Partition(cut); err != nil {
		t.Fatal(err)
	}
	if got, err := command(master, "SET", "cut", "written"); err != nil || got != "+OK" {
		t.Fatalf("SET on the master: %q, %v", got, err)
	}
	time.Sleep(500 * time.Millisecond)
	if got, err := command(replica, "GET", "cut"); err != nil || got != "$-1" {
		t.Errorf("during the partition the replica has %q, %v; want nothing", got, err)
	}
	announced := ""
	for _, node := range l.Nodes() {
		if node.Name == "replica-1" {
			announced = node.Announced
		}
	}
	for _, addr := range []string{master, replica, announced} {
		if !pingAs(t, n, GroupClients, addr, 2*time.Second) {
			t.Errorf("the partition of master|replicas cut the clients off %s too", addr)
		}
	}
	if !slices.Contains(n.Links(), topologies.Link{From: GroupClients, To: "replica-1"}) {
		t.Errorf("the clients reached replica-1 (own address %s, announced %s) on no link of theirs: %v", replica, announced, n.Links())
	}
	if err := n.Heal(cut); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := command(replica, "GET", "cut")
		if err == nil && got == "written" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the heal the replica has %q, %v; want the write", got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !slices.Contains(n.Links(), topologies.Link{From: "replica-1", To: "master"}) {
		t.Errorf("no link replica-1→master among %v", n.Links())
	}
}

// Each client group has links of its own: a partition of one group from
// the master leaves the other group's connections alone, new ones too;
// latency on a group's link slows it alone.
func TestClientGroupLinks(t *testing.T) {
	topotest.Faulted(t)
	l, n := startLinked(t, "local", "clients-a", "clients-b")
	master := nodeAddr(t, l, "master")
	if !pingAs(t, n, "clients-a", master, 2*time.Second) || !pingAs(t, n, "clients-b", master, 2*time.Second) {
		t.Fatal("no PONG before any fault")
	}
	cut := mustParse(t, "at=0s partition sides=master|clients-b")
	if err := n.Partition(cut); err != nil {
		t.Fatal(err)
	}
	if !pingAs(t, n, "clients-a", master, 2*time.Second) {
		t.Error("clients-a lost the master")
	}
	if pingAs(t, n, "clients-b", master, 300*time.Millisecond) {
		t.Error("clients-b reached the master through the partition")
	}
	if err := n.Heal(cut); err != nil {
		t.Fatal(err)
	}
	slow := mustParse(t, "at=0s latency sides=clients-a|master latency=100ms")
	if err := n.Latency(slow); err != nil {
		t.Fatal(err)
	}
	for group, slowed := range map[string]bool{"clients-a": true, "clients-b": false} {
		began := time.Now()
		if !pingAs(t, n, group, master, 2*time.Second) {
			t.Errorf("%s: no PONG with latency", group)
		}
		if took := time.Since(began); (took >= 150*time.Millisecond) != slowed {
			t.Errorf("%s: PING took %v; slowed %v", group, took, slowed)
		}
	}
	if err := n.Heal(slow); err != nil {
		t.Fatal(err)
	}
	bad := mustParse(t, "at=0s partition sides=master|clients-c")
	if err := n.Partition(bad); !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), "clients-c") {
		t.Errorf("a partition from an unknown group: %v", err)
	}
}

// A reset drops the connections on its links (TCP RST) when they next
// carry data, new ones too, and only those: the other group's clients
// still reach the node. With fraction= some connections pass and some do
// not; after the heal every one passes.
func TestResetDropsConnections(t *testing.T) {
	topotest.Faulted(t)
	l, n := startLinked(t, "local", "clients-a", "clients-b")
	master := nodeAddr(t, l, "master")
	reset := mustParse(t, "at=0s reset sides=master|clients-b")
	if err := n.Reset(reset); err != nil {
		t.Fatal(err)
	}
	if !pingAs(t, n, "clients-a", master, 2*time.Second) {
		t.Error("clients-a lost the master")
	}
	began := time.Now()
	if pingAs(t, n, "clients-b", master, 2*time.Second) {
		t.Error("clients-b reached the master through the reset")
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("the reset took %v to fail the PING; want at once (a reset, not a silent cut)", took)
	}
	if err := n.Heal(reset); err != nil {
		t.Fatal(err)
	}
	if !pingAs(t, n, "clients-b", master, 2*time.Second) {
		t.Error("clients-b did not reach the master after the heal")
	}

	some := mustParse(t, "at=0s reset node=master fraction=0.5")
	if err := n.Reset(some); err != nil {
		t.Fatal(err)
	}
	passed := 0
	const tries = 40
	for range tries {
		if pingAs(t, n, "clients-a", master, 2*time.Second) {
			passed++
		}
	}
	if passed == 0 || passed == tries {
		t.Errorf("with fraction=0.5, %d of %d new connections passed; want some, not all", passed, tries)
	}
	t.Logf("fraction=0.5: %d of %d connections passed", passed, tries)
	if err := n.Heal(some); err != nil {
		t.Fatal(err)
	}
}
