package topologies

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lockbench/lockbench/clockshim"
	"github.com/lockbench/lockbench/cpubudget"
)

// Local is a topology of redis-server processes that lockbench started,
// each on a free 127.0.0.1 port in its own temp dir, and will stop.
//
// Its nodes are named master (local:single, and the master of
// local:replicated and local:sentinel), replica-1.., sentinel-1..,
// master-1.. (a cluster's masters; replica i follows master ((i-1) mod
// masters)+1) and node-1.. (local:redlock).
type Local struct {
	name       string
	mode       Mode
	masterName string // the name sentinels monitor, for local:sentinel
	bin        string // the redis-server binary; "" is the one on PATH
	detached   bool   // nodes outlive lockbench
	startup    time.Duration
	// clockShim is preloaded into every node, for ClockJump; "" when
	// there is none, and clockErr says why.
	clockShim string
	clockErr  error

	// proxies carries every link when set (Spec.Proxies); the nodes
	// announce the addresses of their fronts.
	proxies Proxies
	// budget holds every data node to a share of a core (?cpu=); nil
	// without one.
	budget *cpubudget.Budget

	mu      sync.Mutex // guards nodes, the nodes' roles, primary, fronts and pids
	nodes   []*localNode
	primary string // local:single and local:replicated: the node clients use
	fronts  []*front
	pids    map[int]string // with proxies: every process a node started, by id
	// identifying holds a place for each connection whose peer a front
	// is identifying (maxIdentifying).
	identifying chan struct{}
}

// localNode is one process of a Local topology.
type localNode struct {
	Node
	proc *node
}

var (
	_ Topology   = (*Local)(nil)
	_ Controller = (*Local)(nil)
)

// StartLocal starts the local topology of spec (local, local:replicated,
// local:sentinel, local:cluster, local:redlock) and waits until it serves.
// When any node fails to start, the ones started are stopped.
func StartLocal(ctx context.Context, spec Spec) (*Local, error) {
	began := time.Now()
	spec, _, err := spec.Resolve()
	if err != nil {
		return nil, err
	}
	kind, params, err := spec.LocalParams()
	if err != nil {
		return nil, err
	}
	if _, err := redisServerPath(spec.RedisServer); err != nil {
		return nil, err
	}
	if spec.Proxies != nil && spec.Detached {
		return nil, fmt.Errorf("%w: %s: a detached topology cannot keep proxies on its links, which live in this process", ErrBadSpec, spec.Name)
	}
	l := &Local{name: spec.Name, mode: spec.Mode(), bin: spec.RedisServer, detached: spec.Detached, primary: "master", proxies: spec.Proxies,
		identifying: make(chan struct{}, maxIdentifying)}
	if l.budget, err = openBudget(spec); err != nil {
		return nil, err
	}
	l.clockShim, l.clockErr = clockshim.Path()
	start := map[string]func(context.Context, map[string]int) error{
		"single":     l.startSingle,
		"replicated": l.startReplicated,
		"sentinel":   l.startSentinel,
		"cluster":    l.startCluster,
		"redlock":    l.startRedlock,
	}[kind]
	if err := start(ctx, params); err != nil {
		return nil, errors.Join(fmt.Errorf("start %s: %w", spec.Name, err), l.Close())
	}
	l.startup = time.Since(began)
	return l, nil
}

// StartupTime is how long StartLocal took, from its call until every node
// served (replicas in sync, sentinels aware of each other, the cluster
// state ok).
func (l *Local) StartupTime() time.Duration { return l.startup }

func (l *Local) startSingle(ctx context.Context, _ map[string]int) error {
	_, err := l.startNodes(ctx, nodeSpec{name: "master", role: RoleMaster})
	return err
}

// nodeSpec is a node to start: its name, role and config.
type nodeSpec struct {
	name string
	role Role
	cfg  nodeConfig
}

// startNodes starts the nodes at once and adds them, in the order given,
// under their names and roles; on failure the ones that started are added
// too, for Close to stop.
func (l *Local) startNodes(ctx context.Context, specs ...nodeSpec) ([]*localNode, error) {
	procs := make([]*node, len(specs))
	errs := make([]error, len(specs))
	fronts, err := l.openFronts(specs)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for i, s := range specs {
		cfg := s.cfg
		cfg.bin, cfg.detached, cfg.clockShim = l.bin, l.detached, l.clockShim
		if !cfg.sentinel {
			cfg.cpu = l.budget
		}
		cfg.extra = slices.Concat(cfg.extra, fronts[i].announce(cfg))
		if l.proxies != nil {
			cfg.onStart = func(pid int) { l.started(pid, s.name) }
		}
		wg.Go(func() {
			procs[i], errs[i] = startNode(ctx, cfg)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", s.name, errs[i])
			}
		})
	}
	wg.Wait()
	var added []*localNode
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, s := range specs {
		if procs[i] == nil {
			continue
		}
		n := &localNode{Node: Node{Name: s.name, Role: s.role, Endpoint: Endpoint{Addr: procs[i].addr}}, proc: procs[i]}
		fronts[i].started(n)
		l.nodes = append(l.nodes, n)
		added = append(added, n)
	}
	return added, errors.Join(errs...)
}

// Name is the canonical name, e.g. local:sentinel?replicas=2&sentinels=3.
func (l *Local) Name() string { return l.name }

// Access says how clients connect: the master (after Promote on
// local:replicated, the promoted replica), the sentinels, the cluster's
// masters as seeds, or every independent master.
func (l *Local) Access() Access {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := Access{Mode: l.mode, MasterName: l.masterName}
	for _, n := range l.nodes {
		var use bool
		switch {
		case l.masterName != "":
			use = n.Role == RoleSentinel
		case l.mode == ModeSingle:
			use = n.Name == l.primary
		default:
			use = n.Role == RoleMaster
		}
		if use {
			a.Endpoints = append(a.Endpoints, n.Endpoint)
		}
	}
	return a
}

// Nodes lists every node with the role it has: after a Promote, the
// promoted replica is a master and its old master a replica (except on
// local:replicated, where the old master stays a master on its own, as
// after a manual REPLICAOF NO ONE). Roles change only through Promote: a
// failover that Sentinel or the cluster makes on its own, after a Kill or
// a long Pause of a master, does not show here.
func (l *Local) Nodes() []Node {
	l.mu.Lock()
	defer l.mu.Unlock()
	nodes := make([]Node, len(l.nodes))
	for i, n := range l.nodes {
		nodes[i] = n.Node
	}
	return nodes
}

// Managed is true: lockbench started these nodes.
func (l *Local) Managed() bool { return true }

// Representative is true: these are real redis-server processes.
func (l *Local) Representative() bool { return true }

// Close stops every node (resuming paused ones first; SIGKILL for any
// that does not exit within 3 s) and removes their directories. It may be
// called more than once.
func (l *Local) Close() error {
	l.mu.Lock()
	nodes := l.nodes
	l.nodes = nil
	l.mu.Unlock()
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() { errs[i] = n.proc.stop() })
	}
	wg.Wait()
	l.closeFronts()
	return errors.Join(errs...)
}

// node returns the node called name.
func (l *Local) node(name string) (*localNode, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("%w %q in %s", ErrNoNode, name, l.name)
}

// byRole returns the nodes of role, in order.
func (l *Local) byRole(role Role) []*localNode {
	l.mu.Lock()
	defer l.mu.Unlock()
	var nodes []*localNode
	for _, n := range l.nodes {
		if n.Role == role {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// PID is the process id of the node called name (its last process, if it
// was killed), 0 when there is no such node.
func (l *Local) PID(name string) int {
	n, err := l.node(name)
	if err != nil {
		return 0
	}
	return n.proc.pid()
}
