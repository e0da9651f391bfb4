package topologies

import (
	"context"
	"sync"
	"time"
)

// RoleChange is a data node's change of role that a watch saw.
type RoleChange struct {
	// Node is the node's name.
	Node string
	// From and To are its roles before and after: RoleReplica to
	// RoleMaster is a promotion, RoleMaster to RoleReplica a demotion.
	From, To Role
	// At is when the watch saw it: within one poll of when it happened.
	At time.Time
	// Arrived, when set, says instead that clients' commands first
	// reached the node at At (within one poll), From and To being its
	// role: a connection that is no replication link ran a command that
	// is no admin command (adminCommands), opened since the watch began
	// or last saw the node demoted. It is how soon clients followed a
	// promotion, whatever its kind: after a graceful failover the old
	// master keeps answering the clients until it is demoted.
	Arrived bool
}

// RoleWatcher is a topology whose data nodes may change roles by
// themselves, without Promote: a Sentinel's master or a cluster's master
// that fails has a replica promoted in its place.
type RoleWatcher interface {
	// WatchRoles asks each data node its role (ROLE) and its connections
	// (CLIENT LIST) every interval until ctx ends, and calls changed, from
	// one goroutine at a time, with every change it sees and every arrival
	// of clients' commands (RoleChange.Arrived); then it returns. A node that does not answer (paused,
	// killed) keeps the role it last reported until it answers again.
	WatchRoles(ctx context.Context, every time.Duration, changed func(RoleChange))
}

var _ RoleWatcher = (*Local)(nil)

// WatchRoles watches the masters and replicas of local:sentinel and of
// local:cluster with replicas, from the roles Nodes reports when it is
// called; every node is asked over a connection of its own, so that one
// that does not answer delays no other. On the other local topologies
// nothing changes a role but Promote, which returns once it has: it
// returns at once. It does not change the roles Nodes reports.
func (l *Local) WatchRoles(ctx context.Context, every time.Duration, changed func(RoleChange)) {
	if !l.failsOver() {
		return
	}
	var mu sync.Mutex
	report := func(c RoleChange) {
		mu.Lock()
		defer mu.Unlock()
		changed(c)
	}
	var wg sync.WaitGroup
	for _, n := range l.Nodes() {
		if n.Role == RoleMaster || n.Role == RoleReplica {
			wg.Go(func() { watchRole(ctx, n, every, report) })
		}
	}
	wg.Wait()
}

// failsOver reports whether Sentinel or the cluster promotes a replica of
// a failed master by itself.
func (l *Local) failsOver() bool {
	return l.masterName != "" || l.mode == ModeCluster && len(l.byRole(RoleReplica)) > 0
}

// watchRole asks n its role and its connections every interval until ctx
// ends and reports every change from the role it had when last seen (at
// first, n.Role), and the clients' arrivals (arrivals).
// Each ask may take one interval: a node that does not answer in time is
// asked again at the next tick.
func watchRole(ctx context.Context, n Node, every time.Duration, changed func(RoleChange)) {
	every = max(every, time.Millisecond)
	last := n.Role
	var clients arrivals
	var conn *NodeConn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		actx, cancel := context.WithTimeout(ctx, every)
		role, err := askRole(actx, &conn, n.Endpoint)
		var arrived bool
		if err == nil {
			arrived, _ = clients.ask(actx, conn)
		}
		cancel()
		if err != nil {
			continue
		}
		if role != last {
			changed(RoleChange{Node: n.Name, From: last, To: role, At: time.Now()})
			if role == RoleReplica {
				clients.reset()
			}
			last = role
		}
		if arrived {
			changed(RoleChange{Node: n.Name, From: role, To: role, At: time.Now(), Arrived: true})
		}
	}
}

// askRole asks the node at ep its role over *conn, which it dials first
// when nil (and leaves nil when that fails): RoleMaster or RoleReplica.
func askRole(ctx context.Context, conn **NodeConn, ep Endpoint) (Role, error) {
	if *conn == nil {
		c, err := DialNode(ctx, ep)
		if err != nil {
			return "", err
		}
		*conn = c
	}
	role, _, err := (*conn).role(ctx)
	switch {
	case err != nil:
		return "", err
	case role == "master":
		return RoleMaster, nil
	case role == "slave":
		return RoleReplica, nil
	}
	return Role(role), nil
}
