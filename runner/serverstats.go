package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/redisinfo"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// snapshotTimeout bounds one snapshot of every data node of a topology.
const snapshotTimeout = 2 * time.Second

// snapshots are connections to every data node, opened ahead so that
// taking a snapshot is one INFO per node: a snapshot taken as a measured
// phase starts must not lag it by the time connections take to open.
type snapshots struct {
	library string
	nodes   []topologies.Node
	conns   []clients.Client
	// broken marks a connection to open again before the next snapshot of
	// its node (takeOne).
	broken []bool
}

// nodeSnapshot is one node's snapshot, with what tells a restart.
type nodeSnapshot struct {
	metrics.ServerSnapshot
	// runID is the server's run_id, new at every start of its process.
	runID string
	// at is when the snapshot was taken.
	at time.Time
}

// openSnapshots connects to every data node of the topology, with the
// endpoint's credentials and TLS, within snapshotTimeout. The data nodes
// are the masters and replicas among nodes (never sentinels), whatever
// their roles now; for a cluster, those and the masters and replicas the
// cluster names (topologies.Discover) that are not listed; for an
// external Sentinel topology that lists only sentinels, the master and
// the replicas they name (topologies.Discover). A node that does not
// answer is left out and named in the error. Commands that Lua scripts
// run count in commandstats as if a client had sent them: to Redis a
// lua-release cycle is SET, EVALSHA, GET and DEL.
func openSnapshots(ctx context.Context, access topologies.Access, nodes []topologies.Node, library string) (*snapshots, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	s := &snapshots{library: library}
	targets, err := dataNodes(ctx, access, nodes)
	if err != nil && len(targets) == 0 {
		return s, err
	}
	conns := make([]clients.Client, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, node := range targets {
		wg.Go(func() {
			if conns[i], errs[i] = connect(ctx, node.Endpoint, library); errs[i] != nil {
				errs[i] = fmt.Errorf("runner: snapshot of %s (%s): %w", node.Name, node.Endpoint.Addr, errs[i])
			}
		})
	}
	wg.Wait()
	for i, c := range conns {
		if errs[i] == nil {
			s.nodes, s.conns = append(s.nodes, targets[i]), append(s.conns, c)
		}
	}
	s.broken = make([]bool, len(s.conns))
	return s, errors.Join(append(errs, err)...)
}

// take sends INFO to every node at once, within snapshotTimeout, and
// returns the snapshots of the nodes that answered.
func (s *snapshots) take(ctx context.Context) ([]metrics.ServerSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	snaps := make([]nodeSnapshot, len(s.nodes))
	errs := make([]error, len(s.nodes))
	var wg sync.WaitGroup
	for i := range s.nodes {
		wg.Go(func() { snaps[i], errs[i] = s.takeOne(ctx, i) })
	}
	wg.Wait()
	var answered []metrics.ServerSnapshot
	for i, snap := range snaps {
		if errs[i] == nil {
			answered = append(answered, snap.ServerSnapshot)
		}
	}
	return answered, errors.Join(errs...)
}

// takeOne takes the snapshot of node i; one caller at a time per node. A
// connection whose snapshot failed other than by running out of time (the
// node closed it, or refused to be dialled) is replaced by a new one first:
// a client library's own way back may lag the node, and go-redis, its
// pool of one refused a dial, refuses every command for up to a second —
// a node restarted in the meantime would go unseen.
func (s *snapshots) takeOne(ctx context.Context, i int) (nodeSnapshot, error) {
	if s.broken[i] {
		c, err := connect(ctx, s.nodes[i].Endpoint, s.library)
		if err != nil {
			return nodeSnapshot{}, fmt.Errorf("runner: snapshot of %s (%s): %w", s.nodes[i].Name, s.nodes[i].Endpoint.Addr, err)
		}
		s.conns[i].Close()
		s.conns[i], s.broken[i] = c, false
	}
	snap, err := snapshotNode(ctx, s.conns[i], s.nodes[i])
	s.broken[i] = err != nil && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded)
	return snap, err
}

func (s *snapshots) close() {
	for _, c := range s.conns {
		c.Close()
	}
}

// snapshotNode takes node's snapshot over c.
func snapshotNode(ctx context.Context, c clients.Client, node topologies.Node) (nodeSnapshot, error) {
	fail := func(err error) (nodeSnapshot, error) {
		return nodeSnapshot{}, fmt.Errorf("runner: snapshot of %s (%s): %w", node.Name, node.Endpoint.Addr, err)
	}
	// One INFO, so that one call of lockbench's lands between two snapshots.
	info, err := serverInfo(ctx, c, "commandstats", "cpu", "replication", "server")
	at := time.Now()
	if err != nil {
		return fail(err)
	}
	commands, err := metrics.ParseCommandStats(info)
	if err != nil {
		return fail(err)
	}
	cpu, err := metrics.ParseCPU(info)
	if err != nil {
		return fail(err)
	}
	role := string(node.Role)
	if r, err := redisinfo.ParseReplication(info); err == nil { // live: a failover shows
		role = r.Role
	}
	runID, _ := redisinfo.Field(info, "server", "run_id") // "" when it will not say: no restart is told
	return nodeSnapshot{
		ServerSnapshot: metrics.ServerSnapshot{Node: node.Name, Role: role, Commands: commands, CPU: cpu},
		runID:          runID, at: at,
	}, nil
}

// connect is clients.New held to ctx: rueidis dials before it looks at
// ctx. A client that connects too late is closed.
func connect(ctx context.Context, ep topologies.Endpoint, library string) (clients.Client, error) {
	type dialed struct {
		client clients.Client
		err    error
	}
	done := make(chan dialed, 1)
	go func() {
		c, err := clients.New(ctx, ep, clients.Options{Library: library, PoolSize: 1})
		done <- dialed{c, err}
	}()
	select {
	case d := <-done:
		return d.client, d.err
	case <-ctx.Done():
		go func() {
			if d := <-done; d.client != nil {
				d.client.Close()
			}
		}()
		return nil, fmt.Errorf("connect to %s: %w", ep.String(), ctx.Err())
	}
}

// dataNodes lists the nodes that hold data, whatever their roles: not the
// sentinels. With an error, those it found.
func dataNodes(ctx context.Context, access topologies.Access, nodes []topologies.Node) ([]topologies.Node, error) {
	var data []topologies.Node
	for _, n := range nodes {
		if n.Role != topologies.RoleSentinel {
			data = append(data, n)
		}
	}
	switch {
	case access.Mode == topologies.ModeCluster:
		return discovered(ctx, access, data, "no cluster seed named the nodes")
	case access.MasterName != "" && len(data) == 0:
		return discovered(ctx, access, data, "the sentinels named no master")
	}
	return data, nil
}

// discovered lists the nodes listed, then those the topology names
// (topologies.Discover: a cluster's masters and replicas, a Sentinel's
// master and replicas) that the list does not, named by address, with the
// endpoint's credentials and TLS, masters first, in address order.
func discovered(ctx context.Context, access topologies.Access, listed []topologies.Node, none string) ([]topologies.Node, error) {
	found, err := topologies.Discover(ctx, access, listed)
	if err != nil {
		return listed, fmt.Errorf("runner: %s: %w", none, err)
	}
	all := slices.Clone(listed)
	for _, d := range found {
		if !slices.ContainsFunc(listed, func(n topologies.Node) bool { return n.Endpoint.Addr == d.Endpoint.Addr }) {
			all = append(all, d.Node)
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("runner: %s", none)
	}
	return all, nil
}

// serverInfo sends INFO with the sections given over conn and returns its
// text. Before Redis 7, which takes one section, a request of several is
// sent again as INFO all.
func serverInfo(ctx context.Context, conn variants.Conn, sections ...string) (string, error) {
	reply, err := conn.Do(ctx, variants.Bare(append([]string{"INFO"}, sections...)...))
	var se *variants.ServerError
	if errors.As(err, &se) && len(sections) > 1 {
		reply, err = conn.Do(ctx, variants.Bare("INFO", "all"))
	}
	if err != nil {
		return "", err
	}
	info, ok := reply.(string)
	if !ok {
		return "", fmt.Errorf("INFO replied %T", reply)
	}
	return info, nil
}

// infoField is field of the INFO section called section, over conn.
func infoField(ctx context.Context, conn variants.Conn, section, field string) (string, error) {
	info, err := serverInfo(ctx, conn, section)
	if err != nil {
		return "", err
	}
	return redisinfo.Field(info, section, field)
}
