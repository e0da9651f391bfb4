package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// snapshotTimeout bounds one snapshot of every data node of a topology.
const snapshotTimeout = 2 * time.Second

// snapshots are connections to every data node, opened ahead so that
// taking a snapshot is one INFO per node: a snapshot taken as a measured
// phase starts must not lag it by the time connections take to open.
type snapshots struct {
	nodes []topologies.Node
	conns []clients.Client
}

// openSnapshots connects to every data node of the topology, with the
// endpoint's credentials and TLS, within snapshotTimeout. The data nodes
// are the masters and replicas among nodes (never sentinels); for a
// cluster, those and the masters CLUSTER NODES names that are not listed;
// for an external Sentinel topology that lists only sentinels, the master
// they name. A node that does not answer is left out and named in the
// error. Commands that Lua scripts run count in commandstats as if a
// client had sent them: to Redis a lua-release cycle is SET, EVALSHA, GET
// and DEL.
func openSnapshots(ctx context.Context, access topologies.Access, nodes []topologies.Node, library string) (*snapshots, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	s := &snapshots{}
	targets, err := dataNodes(ctx, access, nodes, library)
	if err != nil {
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
	return s, errors.Join(errs...)
}

// take sends INFO to every node at once, within snapshotTimeout.
func (s *snapshots) take(ctx context.Context) ([]metrics.ServerSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	snaps := make([]metrics.ServerSnapshot, len(s.nodes))
	errs := make([]error, len(s.nodes))
	var wg sync.WaitGroup
	for i, node := range s.nodes {
		wg.Go(func() { snaps[i], errs[i] = snapshotNode(ctx, s.conns[i], node) })
	}
	wg.Wait()
	var answered []metrics.ServerSnapshot
	for i, snap := range snaps {
		if errs[i] == nil {
			answered = append(answered, snap)
		}
	}
	return answered, errors.Join(errs...)
}

func (s *snapshots) close() {
	for _, c := range s.conns {
		c.Close()
	}
}

// snapshotNode takes node's snapshot over c.
func snapshotNode(ctx context.Context, c clients.Client, node topologies.Node) (metrics.ServerSnapshot, error) {
	fail := func(err error) (metrics.ServerSnapshot, error) {
		return metrics.ServerSnapshot{}, fmt.Errorf("runner: snapshot of %s (%s): %w", node.Name, node.Endpoint.Addr, err)
	}
	// One INFO, so that one call of lockbench's lands between two snapshots.
	reply, err := c.Do(ctx, variants.Bare("INFO", "commandstats", "cpu", "replication"))
	var se *variants.ServerError
	if errors.As(err, &se) { // before Redis 7, INFO takes one section
		reply, err = c.Do(ctx, variants.Bare("INFO", "all"))
	}
	if err != nil {
		return fail(err)
	}
	info, ok := reply.(string)
	if !ok {
		return fail(fmt.Errorf("INFO replied %T", reply))
	}
	commands, err := metrics.ParseCommandStats(info)
	if err != nil {
		return fail(err)
	}
	cpu, err := metrics.ParseCPU(info)
	if err != nil {
		return fail(err)
	}
	role, err := metrics.ParseRole(info) // live: a failover shows
	if err != nil {
		role = string(node.Role)
	}
	return metrics.ServerSnapshot{Node: node.Name, Role: role, Commands: commands, CPU: cpu}, nil
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

// dataNodes lists the nodes that hold data: not the sentinels.
func dataNodes(ctx context.Context, access topologies.Access, nodes []topologies.Node, library string) ([]topologies.Node, error) {
	var data []topologies.Node
	for _, n := range nodes {
		if n.Role != topologies.RoleSentinel {
			data = append(data, n)
		}
	}
	switch {
	case access.Mode == topologies.ModeCluster:
		return clusterNodes(ctx, access, data, library)
	case access.MasterName != "" && len(data) == 0:
		return sentinelMaster(ctx, access, library)
	}
	return data, nil
}

// clusterNodes lists the nodes listed, then the cluster's masters that
// CLUSTER NODES on a seed names and the list does not (named by address,
// with the seed's credentials and TLS), in address order.
func clusterNodes(ctx context.Context, access topologies.Access, listed []topologies.Node, library string) ([]topologies.Node, error) {
	var errs []error
	for _, seed := range access.Endpoints {
		masters, err := mastersVia(ctx, seed, library)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		slices.Sort(masters)
		found := slices.Clone(listed)
		for _, addr := range masters {
			if slices.ContainsFunc(listed, func(n topologies.Node) bool { return n.Endpoint.Addr == addr }) {
				continue
			}
			node := topologies.Node{Name: addr, Role: topologies.RoleMaster, Endpoint: seed}
			node.Endpoint.Addr = addr
			found = append(found, node)
		}
		return found, nil
	}
	return nil, fmt.Errorf("runner: no cluster seed named the masters: %w", errors.Join(errs...))
}

// mastersVia asks the cluster node at seed for the masters.
func mastersVia(ctx context.Context, seed topologies.Endpoint, library string) ([]string, error) {
	c, err := connect(ctx, seed, library)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	masters, err := clusterMasters(ctx, c)
	if err == nil && len(masters) == 0 {
		err = fmt.Errorf("runner: CLUSTER NODES at %s names no master", seed.Addr)
	}
	return masters, err
}

// sentinelMaster asks the sentinels where the master is, for an external
// Sentinel topology that lists only them. Its replicas are not found.
func sentinelMaster(ctx context.Context, access topologies.Access, library string) ([]topologies.Node, error) {
	var errs []error
	for _, sentinel := range access.Endpoints {
		addr, err := masterAddrVia(ctx, sentinel, access.MasterName, library)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ep := sentinel
		ep.Addr = addr
		return []topologies.Node{{Name: "master", Role: topologies.RoleMaster, Endpoint: ep}}, nil
	}
	return nil, fmt.Errorf("runner: no sentinel named master %q: %w", access.MasterName, errors.Join(errs...))
}

// masterAddrVia asks the sentinel at ep for the address of master name.
func masterAddrVia(ctx context.Context, ep topologies.Endpoint, name, library string) (string, error) {
	c, err := connect(ctx, ep, library)
	if err != nil {
		return "", err
	}
	defer c.Close()
	reply, err := c.Do(ctx, variants.Bare("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name))
	if err != nil {
		return "", fmt.Errorf("runner: SENTINEL GET-MASTER-ADDR-BY-NAME at %s: %w", ep.Addr, err)
	}
	pair, _ := reply.([]any)
	if len(pair) != 2 {
		return "", fmt.Errorf("runner: sentinel at %s does not know master %q", ep.Addr, name)
	}
	host, _ := pair[0].(string)
	var port string
	switch p := pair[1].(type) {
	case string:
		port = p
	case int64:
		port = strconv.FormatInt(p, 10)
	}
	if host == "" || port == "" {
		return "", fmt.Errorf("runner: sentinel at %s replied %v for master %q", ep.Addr, reply, name)
	}
	return net.JoinHostPort(host, port), nil
}
