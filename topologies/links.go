package topologies

import (
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/lockbench/lockbench/procfs"
)

// Link is one kind of connection in a topology, named by its two ends:
// from a node, or from a group of clients (clients, clients-a, ...), to a
// node's data port or, with Bus, to its cluster bus port. Every
// connection replica-1 opens to master is on the link replica-1→master,
// whatever address it took from the master's announcement.
type Link struct {
	From string `json:"from"`
	To   string `json:"to"`
	Bus  bool   `json:"bus,omitempty"`
}

func (l Link) String() string {
	s := l.From + "→" + l.To
	if l.Bus {
		s += " (bus)"
	}
	return s
}

// The From of connections to a node's announced address that no node and
// no client group opened: lockbench's own (a connection that followed an
// address a node announced, without a group's dialer), and any other
// process's.
const (
	FromLockbench = "lockbench"
	FromOther     = "other"
)

// Proxies puts a proxy on each link of a local topology (Spec.Proxies).
// StartLocal has every node announce an address of its own front — to its
// master (replica-announce-ip/port), to the other sentinels (sentinel
// announce-ip/port), to the cluster (cluster-announce-ip/port/bus-port) —
// and points replicas and sentinels at their master's front, so that
// everything that connects to a node finds it there: the front learns
// which process opened each connection and hands it on to the proxy of
// its link. lockbench's clients dial the proxies of their own links,
// found by the nodes' own and announced addresses (Node.Announced).
type Proxies interface {
	// Proxy returns the address of the proxy of link, listening, which
	// forwards to target (the node's own address); it starts the proxy
	// when first asked. It is called for every new connection, from many
	// goroutines at once.
	Proxy(link Link, target string) (string, error)
}

// frontWait bounds how long a connection to a front waits for its node to
// have started.
const frontWait = startTimeout

// Identifying a connection's peer (peerName) reads /proc/net/tcp, which
// lists every socket open here, the connections waiting at the fronts
// among them. At most maxIdentifying are identified at once, and a
// connection that finds no turn within identifyWait is closed (its peer
// connects again): in a CI run on a machine loaded beyond its cores, the
// nodes of a cut cluster link reconnecting ten times a second outran the
// searches, 9,000 connections waited, each making every search longer,
// and TestClusterFailoverAfterCut's topology took more than 11 minutes to
// close.
const (
	maxIdentifying = 4
	identifyWait   = 2 * time.Second
)

// front is the address a node announces when its links go through
// proxies: it names the link of each connection it accepts by the process
// at the other end and splices the connection to that link's proxy.
type front struct {
	l      *Local
	ln     net.Listener
	to     string // the node's name
	bus    bool   // in front of the cluster bus port
	ready  chan struct{}
	target string        // the node's own address; set before ready closes
	done   chan struct{} // closed when the front closes

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// openFront starts the front of the node called name (of its bus port
// with bus) on a free loopback port.
func (l *Local) openFront(name string, bus bool) (*front, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%w: front of %s: %w", ErrStart, name, err)
	}
	f := &front{l: l, ln: ln, to: name, bus: bus, ready: make(chan struct{}), done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	l.mu.Lock()
	l.fronts = append(l.fronts, f)
	l.mu.Unlock()
	f.wg.Go(f.serve)
	return f, nil
}

// addr is where the front listens: the address the node announces.
func (f *front) addr() string { return f.ln.Addr().String() }

func (f *front) port() string { return strconv.Itoa(f.ln.Addr().(*net.TCPAddr).Port) }

// setTarget says where the node listens, once it does.
func (f *front) setTarget(addr string) {
	f.target = addr
	close(f.ready)
}

func (f *front) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return // closed
		}
		if !f.track(c) {
			c.Close()
			return
		}
		f.wg.Go(func() {
			defer f.untrack(c)
			f.handle(c)
		})
	}
}

// handle hands the connection c on to the proxy of its link.
func (f *front) handle(c net.Conn) {
	timer := time.NewTimer(frontWait)
	defer timer.Stop()
	select {
	case <-f.ready:
	case <-f.done:
		return
	case <-timer.C:
		return
	}
	timer.Reset(identifyWait) // Go 1.23's timers: nothing stale to drain
	select {
	case f.l.identifying <- struct{}{}:
	case <-f.done:
		return
	case <-timer.C:
		return
	}
	from := f.l.peerName(c)
	<-f.l.identifying
	link := Link{From: from, To: f.to, Bus: f.bus}
	addr, err := f.l.proxies.Proxy(link, f.target)
	if err != nil {
		return
	}
	up, err := net.DialTimeout("tcp", addr, adminTimeout)
	if err != nil {
		return
	}
	if !f.track(up) {
		up.Close()
		return
	}
	defer f.untrack(up)
	splice(c, up)
}

// splice copies between a and b both ways until either side ends, then
// closes both.
func splice(a, b net.Conn) {
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(a, b)
	go pipe(b, a)
	<-done
	a.Close()
	b.Close()
	<-done
}

func (f *front) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *front) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	c.Close()
}

// close stops the front and every connection through it, and waits for
// them.
func (f *front) close() {
	f.mu.Lock()
	f.closed = true
	close(f.done)
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.ln.Close()
	f.wg.Wait()
}

// started records that the node called name runs as process pid: its
// connections to the fronts are from it.
func (l *Local) started(pid int, name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pids == nil {
		l.pids = map[int]string{}
	}
	l.pids[pid] = name
}

// peerName names the process at the other end of c, a connection to a
// front: a node of the topology, lockbench itself, or another.
//
// The processes are searched lockbench last: its table of open files
// holds every connection its fronts and proxies carry, and grows with
// them. A cut link's front closes each connection its peer opens, and
// cluster nodes open them again ten times a second: under load, the
// searches of lockbench's table fell behind the new connections, each
// waiting one made the table longer, and a test process held 11,000 of
// them and 16 GB (a loaded run, 5 December). The nodes' tables are short:
// in TestClusterFailoverAfterCut on an idle machine a search took 62 ms
// on average lockbench first, 8.6 ms lockbench last.
func (l *Local) peerName(c net.Conn) string {
	l.mu.Lock()
	order, names := searchOrder(l.pids, os.Getpid())
	l.mu.Unlock()
	// The socket whose local address is c's remote one and whose remote
	// address is c's local one is open in the process at the other end
	// (Linux only: elsewhere every connection is FromOther).
	local, lok := c.RemoteAddr().(*net.TCPAddr)
	remote, rok := c.LocalAddr().(*net.TCPAddr)
	if !lok || !rok {
		return FromOther
	}
	pid, err := procfs.SocketOwner(local, remote, order)
	if err != nil {
		return FromOther
	}
	return names[pid]
}

// searchOrder is the order in which peerName searches the processes of
// names (by id) and lockbench (self), lockbench last, and a copy of names
// with lockbench's.
func searchOrder(names map[int]string, self int) ([]int, map[int]string) {
	order := append(slices.Sorted(maps.Keys(names)), self)
	names = maps.Clone(names)
	if names == nil {
		names = map[int]string{}
	}
	names[self] = FromLockbench
	return order, names
}

// closeFronts stops every front.
func (l *Local) closeFronts() {
	l.mu.Lock()
	fronts := l.fronts
	l.fronts = nil
	l.mu.Unlock()
	for _, f := range fronts {
		f.close()
	}
}

// nodeFronts are the fronts of one node about to start: none without
// proxies, a second one in front of a cluster node's bus port.
type nodeFronts struct{ data, bus *front }

// openFronts opens the fronts of the nodes of specs, when the links go
// through proxies.
func (l *Local) openFronts(specs []nodeSpec) ([]nodeFronts, error) {
	fronts := make([]nodeFronts, len(specs))
	if l.proxies == nil {
		return fronts, nil
	}
	for i, s := range specs {
		var err error
		if fronts[i].data, err = l.openFront(s.name, false); err != nil {
			return nil, err
		}
		if s.cfg.cluster {
			if fronts[i].bus, err = l.openFront(s.name, true); err != nil {
				return nil, err
			}
		}
	}
	return fronts, nil
}

// announce are the config lines that make a node announce its fronts:
// to its master as a replica, to the other sentinels, or to the cluster.
func (f nodeFronts) announce(cfg nodeConfig) []string {
	if f.data == nil {
		return nil
	}
	switch {
	case cfg.sentinel:
		return []string{"sentinel announce-ip 127.0.0.1", "sentinel announce-port " + f.data.port()}
	case cfg.cluster:
		return []string{"cluster-announce-ip 127.0.0.1", "cluster-announce-port " + f.data.port(),
			"cluster-announce-bus-port " + f.bus.port()}
	}
	return []string{"replica-announce-ip 127.0.0.1", "replica-announce-port " + f.data.port()}
}

// started points the fronts at the node n, which now runs, and records
// the address n announces.
func (f nodeFronts) started(n *localNode) {
	if f.data == nil {
		return
	}
	n.Announced = f.data.addr()
	f.data.setTarget(n.proc.addr)
	if f.bus != nil {
		f.bus.setTarget(net.JoinHostPort("127.0.0.1", strconv.Itoa(n.proc.busPort)))
	}
}

// announced is the address n gives the other nodes and the clients.
func (n *localNode) announced() string {
	if n.Announced != "" {
		return n.Announced
	}
	return n.Endpoint.Addr
}

// busAnnounced is the cluster bus port n gives the other nodes.
func (l *Local) busAnnounced(n *localNode) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.fronts {
		if f.bus && f.to == n.Name {
			return f.ln.Addr().(*net.TCPAddr).Port
		}
	}
	return n.proc.busPort
}

// LocalNodes are the nodes the topology of s starts with when lockbench
// starts it (a local one, or embedded), by name and role, without starting
// it (no endpoints): what network faults' sides are checked against before
// a run. It fails with ErrNotManaged for servers lockbench does not start.
func (s Spec) LocalNodes() ([]Node, error) {
	resolved, _, err := s.Resolve()
	if err != nil {
		return nil, err
	}
	if resolved.Name == "embedded" {
		return []Node{{Name: "master", Role: RoleMaster}}, nil
	}
	if !resolved.IsLocal() {
		return nil, fmt.Errorf("%w: %s", ErrNotManaged, resolved.Name)
	}
	kind, params, err := resolved.LocalParams()
	if err != nil {
		return nil, err
	}
	var nodes []Node
	add := func(prefix string, count int, role Role) {
		for i := range count {
			nodes = append(nodes, Node{Name: fmt.Sprintf("%s-%d", prefix, i+1), Role: role})
		}
	}
	switch kind {
	case "single", "replicated", "sentinel":
		nodes = append(nodes, Node{Name: "master", Role: RoleMaster})
		add("replica", params["replicas"], RoleReplica)
		add("sentinel", params["sentinels"], RoleSentinel)
	case "cluster":
		add("master", params["masters"], RoleMaster)
		add("replica", params["masters"]*params["replicas"], RoleReplica)
	case "redlock":
		add("node", params["nodes"], RoleMaster)
	}
	return nodes, nil
}
