package topologies

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// forwarders is a Proxies that forwards each link through a listener of
// its own and remembers the links it was asked for: a plain TCP relay, so
// that the test sees which process the fronts said opened each
// connection.
type forwarders struct {
	mu    sync.Mutex
	links map[Link]net.Listener
	conns []net.Conn
	wg    sync.WaitGroup
}

func newForwarders(t *testing.T) *forwarders {
	f := &forwarders{links: map[Link]net.Listener{}}
	t.Cleanup(f.close)
	return f
}

func (f *forwarders) Proxy(link Link, target string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ln, ok := f.links[link]; ok {
		return ln.Addr().String(), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	f.links[link] = ln
	f.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			f.mu.Lock()
			f.conns = append(f.conns, c, up)
			f.mu.Unlock()
			f.wg.Go(func() { splice(c, up) })
		}
	})
	return ln.Addr().String(), nil
}

// seen lists the links asked for, as strings, sorted.
func (f *forwarders) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s []string
	for l := range f.links {
		s = append(s, l.String())
	}
	slices.Sort(s)
	return s
}

func (f *forwarders) close() {
	f.mu.Lock()
	for _, ln := range f.links {
		ln.Close()
	}
	for _, c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// waitLinks waits until every link of want has been asked for.
func waitLinks(t *testing.T, f *forwarders, want ...string) {
	t.Helper()
	eventually(t, "links "+strings.Join(want, ", "), func() error {
		seen := f.seen()
		for _, w := range want {
			if !slices.Contains(seen, w) {
				return fmt.Errorf("no link %s among %v", w, seen)
			}
		}
		return nil
	})
}

// With proxies, every node of local:sentinel announces its front, and
// every connection — replica to master, sentinel to master, sentinel to
// replica and to sentinel — is on the link of its two ends, also after a
// failover.
func TestLinksSentinel(t *testing.T) {
	faulted(t)
	proxies := newForwarders(t)
	l := startLocal(t, Spec{Name: "local:sentinel?replicas=2&sentinels=3", Proxies: proxies})
	for _, n := range l.Nodes() {
		if n.Announced == "" || n.Announced == n.Endpoint.Addr {
			t.Errorf("%s announces %q, its own address %s", n.Name, n.Announced, n.Endpoint.Addr)
		}
	}
	waitLinks(t, proxies, "replica-1→master", "replica-2→master", "sentinel-1→master", "sentinel-3→replica-2",
		"sentinel-1→sentinel-2", "sentinel-2→sentinel-3")
	for _, s := range proxies.seen() {
		if strings.HasPrefix(s, FromOther) || strings.HasPrefix(s, FromLockbench) {
			t.Errorf("link %s: a front did not know the process at the other end", s)
		}
	}

	// Discovery names the nodes the sentinels report at their fronts.
	nodes := discover(t, l.Access(), l.Nodes())
	if got := roles(nodes); !slices.Equal(got, []string{"master/master", "replica-1/replica", "replica-2/replica"}) {
		t.Errorf("discovered %v", got)
	}

	// Sentinel fails over to the announced replica, and the nodes then
	// follow the new master through their links to it.
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	if err := l.Promote(ctx, "replica-1"); err != nil {
		dumpLogs(t, l)
		t.Fatal(err)
	}
	checkRoles(t, l, "after the failover", map[string]Role{"master": RoleReplica, "replica-1": RoleMaster, "replica-2": RoleReplica})
	waitLinks(t, proxies, "master→replica-1", "replica-2→replica-1")
}

// With proxies, the nodes of a cluster meet at their fronts: the bus
// links and the replication links are each on the link of their ends.
func TestLinksCluster(t *testing.T) {
	proxies := newForwarders(t)
	l := startLocal(t, Spec{Name: "local:cluster?masters=3&replicas=1", Proxies: proxies})
	waitLinks(t, proxies, "master-1→master-2 (bus)", "master-2→master-1 (bus)", "replica-3→master-1 (bus)",
		"replica-1→master-1", "replica-2→master-2", "replica-3→master-3")
	nodes := discover(t, l.Access(), l.Nodes())
	want := []string{"master-1/master", "master-2/master", "master-3/master", "replica-1/replica", "replica-2/replica", "replica-3/replica"}
	if got := roles(nodes); !slices.Equal(got, want) {
		t.Errorf("discovered %v, want %v", got, want)
	}
}

// Without proxies nothing changes: the nodes announce their own
// addresses. A detached topology cannot have proxies.
func TestNoLinks(t *testing.T) {
	l := startLocal(t, Spec{Name: "local:replicated?replicas=1"})
	for _, n := range l.Nodes() {
		if n.Announced != "" {
			t.Errorf("%s announces %s without proxies", n.Name, n.Announced)
		}
	}
	if _, err := StartLocal(t.Context(), Spec{Name: "local", Detached: true, Proxies: newForwarders(t)}); err == nil {
		t.Error("a detached topology with proxies started")
	}
}

// peerName searches lockbench's own table of open files last: it holds
// every connection the fronts carry (see peerName).
func TestSearchOrderLockbenchLast(t *testing.T) {
	names := map[int]string{40: "master", 7: "replica-1", 90: "clients-a", 12: "sentinel-1"}
	for _, self := range []int{1, 50, 100} {
		order, got := searchOrder(names, self)
		if want := []int{7, 12, 40, 90, self}; !slices.Equal(order, want) {
			t.Errorf("self %d: order %v; want %v", self, order, want)
		}
		if got[self] != FromLockbench || got[40] != "master" || len(names) != 4 {
			t.Errorf("self %d: names %v (given %v); want the nodes' and lockbench's, the given ones unchanged", self, got, names)
		}
	}
	if order, _ := searchOrder(nil, 3); !slices.Equal(order, []int{3}) {
		t.Errorf("no nodes: order %v; want lockbench alone", order)
	}
}

// A connection that finds no turn to be identified within identifyWait is
// closed, and its link never asked for: the fronts' backlog stays bounded
// however fast peers reconnect.
func TestFrontIdentifyingBounded(t *testing.T) {
	l := &Local{identifying: make(chan struct{}, maxIdentifying)}
	for range maxIdentifying {
		l.identifying <- struct{}{} // every turn taken
	}
	f := &front{l: l, ready: make(chan struct{}), done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	close(f.ready)
	ours, theirs := net.Pipe()
	defer theirs.Close()
	began := time.Now()
	f.handle(ours) // a nil l.proxies: asking for the link would panic
	if waited := time.Since(began); waited < identifyWait {
		t.Errorf("handle returned after %v, before identifyWait (%v)", waited, identifyWait)
	}
	f.untrack(ours)
	if _, err := theirs.Write([]byte("x")); err == nil {
		t.Error("the connection is still open")
	}
}
