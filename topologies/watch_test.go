package topologies

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// watching runs l.WatchRoles every 50 ms in the background; stop ends it
// and returns the changes it saw, and when it returned.
func watching(l *Local) (stop func() ([]RoleChange, time.Time)) {
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		changes  []RoleChange
		returned time.Time
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		l.WatchRoles(ctx, 50*time.Millisecond, func(c RoleChange) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, c)
		})
		returned = time.Now()
	}()
	return func() ([]RoleChange, time.Time) {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return changes, returned
	}
}

// has reports whether changes hold node's change from one role to the
// other, seen between after and before.
func has(changes []RoleChange, node string, from, to Role, after, before time.Time) bool {
	return slices.ContainsFunc(changes, func(c RoleChange) bool {
		return c.Node == node && c.From == from && c.To == to && !c.At.Before(after) && !c.At.After(before)
	})
}

// A Sentinel failover as the watch sees it: the replica promoted and the
// old master demoted, both before Promote (which waits for both) returns,
// within a poll.
func TestWatchRolesSentinelPromote(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:sentinel?replicas=1&sentinels=3"})
	stop := watching(l)
	began := time.Now()
	if err := l.Promote(context.Background(), "replica-1"); err != nil {
		t.Fatal(err)
	}
	done := time.Now()
	time.Sleep(150 * time.Millisecond)
	changes, _ := stop()
	within := done.Add(100 * time.Millisecond)
	if !has(changes, "replica-1", RoleReplica, RoleMaster, began, within) || !has(changes, "master", RoleMaster, RoleReplica, began, within) ||
		len(changes) != 2 {
		t.Errorf("changes %+v; want replica-1 promoted and master demoted, between %v and %v", changes, began, within)
	}
}

// A killed cluster master: the cluster promotes its replica by itself
// (cluster-node-timeout 1 s) and the watch sees it; the dead master,
// which answers nothing, changes nothing.
func TestWatchRolesClusterKill(t *testing.T) {
	faulted(t)
	l := startLocal(t, Spec{Name: "local:cluster?masters=3&replicas=1"})
	stop := watching(l)
	killed := time.Now()
	if err := l.Kill("master-1"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !l.isMaster(t, "replica-1") {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	changes, _ := stop()
	if !has(changes, "replica-1", RoleReplica, RoleMaster, killed.Add(time.Second), time.Now()) || len(changes) != 1 {
		t.Fatalf("changes %+v; want replica-1 promoted, at least the node timeout after the kill", changes)
	}
	t.Logf("promoted %v after the kill", changes[0].At.Sub(killed))
}

// isMaster asks the node called name whether it is a master now.
func (l *Local) isMaster(t *testing.T, name string) bool {
	n, err := l.node(name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := dialAdmin(n.Endpoint.Addr)
	if err != nil {
		return false
	}
	defer a.Close()
	role, _, err := a.role(context.Background())
	return err == nil && role == "master"
}

// Where nothing but Promote changes roles, WatchRoles returns at once.
func TestWatchRolesNoFailover(t *testing.T) {
	for _, name := range []string{"local:replicated?replicas=1", "local:cluster?masters=3"} {
		l := startLocal(t, Spec{Name: name})
		began := time.Now()
		stop := watching(l)
		time.Sleep(200 * time.Millisecond)
		changes, returned := stop()
		if len(changes) != 0 || returned.Sub(began) > 100*time.Millisecond {
			t.Errorf("%s: changes %+v, returned after %v; want none, at once", name, changes, returned.Sub(began))
		}
	}
}
