package topologies

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"
)

// promoteTimeout bounds Promote.
const promoteTimeout = 20 * time.Second

// Pause stops the node's process (SIGSTOP): it keeps its connections and
// answers nothing until Resume.
func (l *Local) Pause(name string) error {
	return l.signal(name, "pause", syscall.SIGSTOP)
}

// Resume lets a paused node run again (SIGCONT).
func (l *Local) Resume(name string) error {
	return l.signal(name, "resume", syscall.SIGCONT)
}

func (l *Local) signal(name, what string, sig syscall.Signal) error {
	n, err := l.node(name)
	if err != nil {
		return err
	}
	if err := n.proc.signal(sig); err != nil {
		return fmt.Errorf("%s %s: %w", what, name, err)
	}
	return nil
}

// Kill ends the node's process at once (SIGKILL) and waits for it; its
// data is lost, its directory and config are kept for Restart. Killing a
// node that is not running does nothing.
func (l *Local) Kill(name string) error {
	n, err := l.node(name)
	if err != nil {
		return err
	}
	if err := n.proc.kill(); err != nil {
		return fmt.Errorf("kill %s: %w", name, err)
	}
	return nil
}

// Restart kills the node if it runs (paused or not), waits delay (or until
// ctx ends), starts it again on the same port, directory and config file,
// and waits until it answers PING. Its dataset is empty; a replica syncs
// again from its master, a cluster node rejoins with its old identity
// (nodes.conf), a sentinel with its rewritten config.
func (l *Local) Restart(ctx context.Context, name string, delay time.Duration) error {
	n, err := l.node(name)
	if err != nil {
		return err
	}
	if err := n.proc.kill(); err != nil {
		return fmt.Errorf("restart %s: %w", name, err)
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("restart %s: %w", name, ctx.Err())
	case <-t.C:
	}
	if err := n.proc.start(ctx); err != nil {
		return fmt.Errorf("restart %s: %w", name, err)
	}
	if l.role(n) == RoleSentinel {
		a, err := dialAdmin(n.Endpoint.Addr)
		if err != nil {
			return fmt.Errorf("restart %s: %w", name, err)
		}
		defer a.Close()
		if err := a.exec(ctx, sentinelTuning...); err != nil {
			return fmt.Errorf("restart %s: %w", name, err)
		}
	}
	return nil
}

// Promote makes the replica called name a master and waits (at most 20 s)
// until its ROLE says so: REPLICAOF NO ONE (and CONFIG REWRITE, so that a
// restart keeps it a master) on local:replicated, where the old master
// stays a master on its own and the other replicas keep following it;
// SENTINEL FAILOVER on local:sentinel, with the other replicas'
// replica-priority set to 0 meanwhile so that Sentinel picks this one;
// CLUSTER FAILOVER sent to the replica on local:cluster (FORCE when its
// master is paused or killed). With Sentinel and in a cluster it also
// waits until the old master, if it runs, has become a replica. Nodes
// shows the new roles afterwards.
func (l *Local) Promote(ctx context.Context, name string) error {
	n, err := l.node(name)
	if err != nil {
		return err
	}
	if err := l.promote(ctx, n); err != nil {
		return fmt.Errorf("promote %s: %w", name, err)
	}
	return nil
}

// FlushScripts empties the script cache of the node called name: SCRIPT
// FLUSH, as a restarted node or a replica promoted without the master's
// scripts has it.
func (l *Local) FlushScripts(ctx context.Context, name string) error {
	n, err := l.node(name)
	if err != nil {
		return err
	}
	a, err := DialNode(ctx, n.Endpoint)
	if err != nil {
		return fmt.Errorf("script flush %s: %w", name, err)
	}
	defer a.Close()
	if err := a.exec(ctx, "SCRIPT", "FLUSH"); err != nil {
		return fmt.Errorf("script flush %s: %w", name, err)
	}
	return nil
}

func (l *Local) promote(ctx context.Context, n *localNode) error {
	if role := l.role(n); role != RoleReplica {
		return fmt.Errorf("it is a %s, not a replica", role)
	}
	if !n.proc.usable() {
		return fmt.Errorf("it is paused or %w", errNotRunning)
	}
	ctx, cancel := context.WithTimeout(ctx, promoteTimeout)
	defer cancel()
	a, err := dialAdmin(n.Endpoint.Addr)
	if err != nil {
		return err
	}
	defer a.Close()
	role, oldMaster, err := a.role(ctx)
	if err != nil {
		return err
	}
	if role != "slave" {
		return fmt.Errorf("its ROLE is %s, not slave", role)
	}
	switch {
	case l.masterName != "":
		err = l.sentinelFailover(ctx, n)
	case l.mode == ModeCluster:
		err = l.clusterFailover(ctx, n, a, oldMaster)
	default:
		if err = a.exec(ctx, "REPLICAOF", "NO", "ONE"); err == nil {
			err = a.exec(ctx, "CONFIG", "REWRITE")
		}
	}
	if err != nil {
		return err
	}
	if err := a.waitRole(ctx, promoteTimeout, "master"); err != nil {
		return err
	}
	old := l.nodeAt(oldMaster)
	if old != nil && l.role(old) == RoleMaster && (l.masterName != "" || l.mode == ModeCluster) && old.proc.usable() {
		// Sentinel or the cluster demotes the old master.
		o, err := dialAdmin(old.Endpoint.Addr)
		if err != nil {
			return err
		}
		defer o.Close()
		if err := o.waitRole(ctx, promoteTimeout, "slave"); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	n.Role = RoleMaster
	switch {
	case l.mode == ModeSingle && l.masterName == "":
		l.primary = n.Name
	case old != nil:
		old.Role = RoleReplica
	}
	return nil
}

// clusterFailover sends CLUSTER FAILOVER to the replica at a once its
// master knows it as its replica (a replica that just followed a new
// master is not known as such at once, and the master ignores its request)
// and again while the replica has not become master: a manual failover
// that fails times out after 5 s without a word. With the master paused or
// killed it sends CLUSTER FAILOVER FORCE. A failover that never completes
// is said with what the replica's log last said of it.
func (l *Local) clusterFailover(ctx context.Context, replica *localNode, a *NodeConn, masterAddr string) error {
	args := []string{"CLUSTER", "FAILOVER"}
	if master := l.nodeAt(masterAddr); master == nil || !master.proc.usable() {
		args = append(args, "FORCE")
	} else {
		id, err := a.text(ctx, "CLUSTER", "MYID")
		if err != nil {
			return err
		}
		m, err := dialAdmin(master.Endpoint.Addr)
		if err != nil {
			return err
		}
		defer m.Close()
		masterID, err := m.text(ctx, "CLUSTER", "MYID")
		if err != nil {
			return err
		}
		err = waitFor(ctx, promoteTimeout, "the master to know its replica", func(ctx context.Context) error {
			replicas, err := m.do(ctx, "CLUSTER", "REPLICAS", masterID).AsStrSlice()
			if err != nil {
				return err
			}
			for _, r := range replicas {
				if strings.HasPrefix(r, id+" ") {
					return nil
				}
			}
			return fmt.Errorf("%s does not list %s among its replicas", masterAddr, a.addr)
		})
		if err != nil {
			return err
		}
	}
	err := waitFor(ctx, promoteTimeout, "a manual failover", func(ctx context.Context) error {
		if role, _, err := a.role(ctx); err == nil && role == "master" {
			return nil // an earlier attempt succeeded late
		}
		if err := a.exec(ctx, args...); err != nil {
			return err
		}
		return a.waitRole(ctx, 6*time.Second, "master")
	})
	if err != nil {
		if said := replica.proc.lastLine("failover", "Failover", "election"); said != "" {
			err = fmt.Errorf("%w; %s's log last said: %s", err, replica.Name, said)
		}
		for _, m := range l.byRole(RoleMaster) {
			if said := m.proc.lastLine("Failover auth denied"); said != "" {
				err = fmt.Errorf("%w; %s's: %s", err, m.Name, said)
			}
		}
	}
	return err
}

// sentinelFailover has the first usable sentinel fail its master over to
// target and waits until it reports target as the master.
//
// Before the failover every running sentinel must know target as a
// replica (ROLE reported "slave"): a sentinel that still holds an older
// report of target as a master (it was one, and was demoted between two of
// that sentinel's INFO reads) takes the promoted target for a stray master
// and turns it back into a replica before the new configuration reaches
// it, and the failover never completes (seen when a master was promoted
// back 3 s after a failover).
func (l *Local) sentinelFailover(ctx context.Context, target *localNode) error {
	var sentinels []*NodeConn
	for _, sn := range l.byRole(RoleSentinel) {
		if !sn.proc.usable() {
			continue
		}
		s, err := dialAdmin(sn.Endpoint.Addr)
		if err != nil {
			return err
		}
		defer s.Close()
		sentinels = append(sentinels, s)
	}
	if len(sentinels) == 0 {
		return fmt.Errorf("no sentinel is running")
	}
	s := sentinels[0]
	before, err := s.sentinelMaster(ctx, sentinelMasterName)
	if err != nil {
		return err
	}

	// Sentinel picks the replica with the lowest replica-priority (0:
	// never), so leave it no choice but target.
	var others []string // as the sentinels know them: by the addresses they announce
	for _, r := range l.byRole(RoleReplica) {
		if r == target || !r.proc.usable() {
			continue
		}
		a, err := dialAdmin(r.Endpoint.Addr)
		if err != nil {
			return err
		}
		defer a.Close()
		others = append(others, r.announced())
		defer func() { _ = a.exec(context.WithoutCancel(ctx), "CONFIG", "SET", "replica-priority", "100") }()
		if err := a.exec(ctx, "CONFIG", "SET", "replica-priority", "0"); err != nil {
			return err
		}
	}
	err = waitFor(ctx, promoteTimeout, "the sentinels to see the target as a replica, and the other replicas' priority 0", func(ctx context.Context) error {
		// Only s, which fails over on its own (SENTINEL FAILOVER asks no
		// other sentinel), picks the replica.
		if err := readyToPromote(ctx, s, target.announced(), others); err != nil {
			return err
		}
		for _, other := range sentinels[1:] {
			if err := readyToPromote(ctx, other, target.announced(), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// INPROG while an earlier failover still reconfigures replicas.
	err = waitFor(ctx, promoteTimeout, "the sentinel to start a failover", func(ctx context.Context) error {
		return s.exec(ctx, "SENTINEL", "FAILOVER", sentinelMasterName)
	})
	if err != nil {
		return err
	}
	var after string
	err = waitFor(ctx, promoteTimeout, "the sentinel to switch masters", func(ctx context.Context) error {
		if after, err = s.sentinelMaster(ctx, sentinelMasterName); err != nil {
			return err
		}
		if after == before {
			return fmt.Errorf("the master is still %s", before)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if after != target.announced() {
		return fmt.Errorf("sentinel at %s promoted %s instead", s.addr, after)
	}
	return nil
}

// readyToPromote says why sentinel s would not yet fail its master over
// to target alone: target not reported as a replica, or one of others
// (the other replicas) without priority 0.
func readyToPromote(ctx context.Context, s *NodeConn, target string, others []string) error {
	list, err := s.sentinelList(ctx, "REPLICAS", sentinelMasterName)
	if err != nil {
		return err
	}
	seen := false
	for _, r := range list {
		switch {
		case r["name"] == target:
			// A sentinel cut off from target cannot turn it back either.
			cutOff := strings.Contains(r["flags"], "disconnected") || strings.Contains(r["flags"], "s_down")
			if r["role-reported"] != "slave" && !cutOff {
				return fmt.Errorf("sentinel at %s last saw %s as a %s", s.addr, target, r["role-reported"])
			}
			seen = true
		case slices.Contains(others, r["name"]) && r["slave-priority"] != "0":
			return fmt.Errorf("sentinel at %s sees replica %s with priority %s", s.addr, r["name"], r["slave-priority"])
		}
	}
	if !seen {
		return fmt.Errorf("sentinel at %s does not list %s among the replicas", s.addr, target)
	}
	return nil
}

// role is n's role as recorded.
func (l *Local) role(n *localNode) Role {
	l.mu.Lock()
	defer l.mu.Unlock()
	return n.Role
}

// nodeAt is the node at addr, its own or the one it announces; nil when
// none.
func (l *Local) nodeAt(addr string) *localNode {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.nodes {
		if n.At(addr) {
			return n
		}
	}
	return nil
}
