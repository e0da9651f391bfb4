package topologies

import (
	"context"
	"testing"
	"time"
)

// A cluster node that lost another (CLUSTER FORGET stands for a handshake
// timed out under load; it also keeps gossip from bringing the node back
// for 60 s) knows it again within seconds once meetMissing introduces
// them: the start's wait for a whole cluster does so for every node that
// lacks one, instead of waiting on gossip past its 30 s.
func TestMeetMissingRejoins(t *testing.T) {
	l := startLocal(t, Spec{Name: "local:cluster?masters=3&replicas=0"})
	a, err := dialAdmin(l.nodes[0].Endpoint.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := t.Context()
	lost, err := dialAdmin(l.nodes[2].Endpoint.Addr)
	if err != nil {
		t.Fatal(err)
	}
	id, err := lost.text(ctx, "CLUSTER", "MYID")
	lost.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.exec(ctx, "CLUSTER", "FORGET", id); err != nil {
		t.Fatal(err)
	}
	if _, err := clusterReady(ctx, a, 3, 0); err == nil {
		t.Fatal("after CLUSTER FORGET the node still knows all three")
	}
	err = waitFor(ctx, 15*time.Second, "master-1 to know master-3 again", func(ctx context.Context) error {
		return l.readyOrMeet(ctx, a, l.nodes, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
}
