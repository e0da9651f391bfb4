package topologies

import (
	"context"
	"fmt"
	"net"
	"time"
)

const (
	// sentinelMasterName is the name local:sentinel's sentinels monitor
	// the master under.
	sentinelMasterName = "lockbench"
	// readyTimeout bounds how long a topology may take to form once its
	// nodes answer PING.
	readyTimeout = 30 * time.Second
)

// sentinelTuning is what local:sentinel changes in each sentinel with
// SENTINEL DEBUG: replicas' INFO every second instead of every 10 s, so
// that Promote's replica-priority changes are seen at once, and hello
// messages every 500 ms instead of every 2 s, so that sentinels find each
// other sooner.
var sentinelTuning = []string{"SENTINEL", "DEBUG", "info-period", "1000", "publish-period", "500"}

// startRedlock starts N independent masters node-1..node-N.
func (l *Local) startRedlock(ctx context.Context, params map[string]int) error {
	specs := make([]nodeSpec, params["nodes"])
	for i := range specs {
		specs[i] = nodeSpec{name: fmt.Sprintf("node-%d", i+1), role: RoleMaster}
	}
	_, err := l.startNodes(ctx, specs...)
	return err
}

// startReplicated starts master and replica-1..replica-N, which replicate
// it, and waits until every replica is in sync.
func (l *Local) startReplicated(ctx context.Context, params map[string]int) error {
	masters, err := l.startNodes(ctx, nodeSpec{name: "master", role: RoleMaster})
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(masters[0].announced())
	specs := make([]nodeSpec, params["replicas"])
	for i := range specs {
		specs[i] = nodeSpec{
			name: fmt.Sprintf("replica-%d", i+1),
			role: RoleReplica,
			cfg:  nodeConfig{extra: []string{"replicaof " + host + " " + port}},
		}
	}
	replicas, err := l.startNodes(ctx, specs...)
	if err != nil {
		return err
	}
	return waitInSync(ctx, replicas)
}

// waitInSync waits until every replica reports master_link_status:up.
func waitInSync(ctx context.Context, replicas []*localNode) error {
	conns, err := dialAll(addrs(replicas))
	if err != nil {
		return err
	}
	defer closeAll(conns)
	return waitFor(ctx, readyTimeout, "replicas in sync with their masters", func(ctx context.Context) error {
		for _, a := range conns {
			info, err := a.Info(ctx, "replication")
			if err != nil {
				return err
			}
			if s, _ := info.Field("replication", "master_link_status"); s != "up" {
				return fmt.Errorf("%s: master_link_status:%s", a.addr, s)
			}
		}
		return nil
	})
}

// sentinelDownAfter is how long sentinel i (from 0) waits before it finds
// a silent master down: 1 s, and 200 ms more for each sentinel after the
// first. Sentinels that find the master down at the same moment — all of
// them, when a partition or a kill silences it for all at once — each
// vote for themselves; a three-way split elects no one, and Sentinel
// tries again only after twice the failover timeout, 10 s (seen in about
// 1 split-brain run in 8: no promotion in the cell). Staggered, the
// sentinel that completes the quorum starts the election alone and the
// others, not yet agreed that the master is down, vote for it.
func sentinelDownAfter(i int) time.Duration {
	return time.Second + time.Duration(i)*200*time.Millisecond
}

// startSentinel starts the replicated topology and sentinel-1..sentinel-M
// that monitor its master as "lockbench" with a majority quorum, and waits
// until every sentinel knows the master, every replica and every other
// sentinel, so that a failover can happen.
func (l *Local) startSentinel(ctx context.Context, params map[string]int) error {
	if err := l.startReplicated(ctx, params); err != nil {
		return err
	}
	l.masterName = sentinelMasterName
	master := l.byRole(RoleMaster)[0]
	host, port, _ := net.SplitHostPort(master.announced())
	count := params["sentinels"]
	specs := make([]nodeSpec, count)
	for i := range specs {
		specs[i] = nodeSpec{
			name: fmt.Sprintf("sentinel-%d", i+1),
			role: RoleSentinel,
			cfg: nodeConfig{sentinel: true, extra: []string{
				fmt.Sprintf("sentinel monitor %s %s %s %d", sentinelMasterName, host, port, count/2+1),
				fmt.Sprintf("sentinel down-after-milliseconds %s %d", sentinelMasterName, sentinelDownAfter(i).Milliseconds()),
				"sentinel failover-timeout " + sentinelMasterName + " 5000",
			}},
		}
	}
	sentinels, err := l.startNodes(ctx, specs...)
	if err != nil {
		return err
	}
	conns, err := dialAll(addrs(sentinels))
	if err != nil {
		return err
	}
	defer closeAll(conns)
	for _, a := range conns {
		if err := a.exec(ctx, sentinelTuning...); err != nil {
			return err
		}
	}
	replicas := len(l.byRole(RoleReplica))
	return waitFor(ctx, readyTimeout, "sentinels to know the master, its replicas and each other", func(ctx context.Context) error {
		for _, a := range conns {
			if err := sentinelReady(ctx, a, master.announced(), replicas, count-1); err != nil {
				return err
			}
		}
		return nil
	})
}

// sentinelReady checks that the sentinel at a monitors the master at
// masterAddr and knows its replicas and the other sentinels, all of them
// reachable.
func sentinelReady(ctx context.Context, a *NodeConn, masterAddr string, replicas, others int) error {
	got, err := a.sentinelMaster(ctx, sentinelMasterName)
	if err != nil {
		return err
	}
	if got != masterAddr {
		return fmt.Errorf("sentinel %s: master at %s, not %s", a.addr, got, masterAddr)
	}
	for what, want := range map[string]int{"REPLICAS": replicas, "SENTINELS": others} {
		list, err := a.sentinelList(ctx, what, sentinelMasterName)
		if err != nil {
			return err
		}
		healthy := 0
		for _, inst := range list {
			if inst["flags"] == "slave" || inst["flags"] == "sentinel" {
				healthy++
			}
		}
		if healthy != want {
			return fmt.Errorf("sentinel %s: %d healthy of %d %s, want %d", a.addr, healthy, len(list), what, want)
		}
	}
	return nil
}

// addrs are the nodes' addresses.
func addrs(nodes []*localNode) []string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = n.Endpoint.Addr
	}
	return s
}
