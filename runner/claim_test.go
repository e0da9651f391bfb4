package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// A run claims its id on a server it did not start: a second run of the
// id is refused while the first lives, shards of one run share it (each
// index once, one shard count), the last to leave deletes the claim, and
// the claim of a process that died frees itself after its TTL.
func TestClaimRunID(t *testing.T) {
	ep := topotest.Endpoint(t)
	ctx := context.Background()
	target, err := topologies.Open(ctx, topologies.Spec{Targets: []string{"redis://" + ep.Addr}})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clients.New(ctx, ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exists := func(runID string) bool {
		n, err := conn.Do(ctx, variants.Cmd("EXISTS", ClaimKey(runID)))
		if err != nil {
			t.Fatal(err)
		}
		return n == int64(1)
	}
	shard := func(i, n int) *workloads.Shard { return &workloads.Shard{Index: i, Count: n} }

	first, err := claimRun(ctx, target, "", "claimed", nil)
	if err != nil || first == nil {
		t.Fatalf("first claim: %v, %v", first, err)
	}
	if _, err := claimRun(ctx, target, "", "claimed", nil); !errors.Is(err, ErrRunIDInUse) {
		t.Errorf("a second run of the id: %v, want ErrRunIDInUse", err)
	}
	if _, err := claimRun(ctx, target, "", "claimed", shard(1, 2)); !errors.Is(err, ErrRunIDInUse) {
		t.Errorf("a shard of a run of the id of a whole run: %v, want ErrRunIDInUse", err)
	}
	other, err := claimRun(ctx, target, "", "another", nil)
	if err != nil {
		t.Errorf("another run id: %v", err)
	}
	other.release(ctx)
	// The run's cleanup leaves the claim to its holder.
	if err := cleanup(ctx, target.Access(), []clients.Client{conn}, "", KeyPrefix("claimed")); err != nil || !exists("claimed") {
		t.Errorf("cleanup: %v; the claim exists: %v, want it kept", err, exists("claimed"))
	}
	first.release(ctx)
	if exists("claimed") {
		t.Error("the claim outlived its release")
	}
	again, err := claimRun(ctx, target, "", "claimed", nil)
	if err != nil {
		t.Errorf("the id after its release: %v", err)
	}
	again.release(ctx)

	one, err := claimRun(ctx, target, "", "sharded", shard(1, 3))
	if err != nil {
		t.Fatal(err)
	}
	two, err := claimRun(ctx, target, "", "sharded", shard(2, 3))
	if err != nil {
		t.Fatalf("shard 2/3 beside 1/3: %v", err)
	}
	for _, tc := range []struct {
		name  string
		shard *workloads.Shard
	}{{"shard 2/3 twice", shard(2, 3)}, {"another shard count", shard(3, 4)}, {"a whole run", nil}} {
		if _, err := claimRun(ctx, target, "", "sharded", tc.shard); !errors.Is(err, ErrRunIDInUse) {
			t.Errorf("%s: %v, want ErrRunIDInUse", tc.name, err)
		}
	}
	one.release(ctx)
	if !exists("sharded") {
		t.Error("the claim went with the first shard to leave")
	}
	two.release(ctx)
	if exists("sharded") {
		t.Error("the claim outlived the last shard")
	}

	// A process that died leaves its part, which frees itself after the
	// TTL (short here, through the script itself).
	if reply, err := claimScript.Run(ctx, conn, []string{ClaimKey("died")}, "1", "1", "dead-token", "300"); err != nil || reply != "ok" {
		t.Fatalf("claim: %v %v", reply, err)
	}
	if _, err := claimRun(ctx, target, "", "died", nil); !errors.Is(err, ErrRunIDInUse) {
		t.Errorf("while the dead run's claim lasts: %v, want ErrRunIDInUse", err)
	}
	time.Sleep(400 * time.Millisecond)
	after, err := claimRun(ctx, target, "", "died", nil)
	if err != nil {
		t.Errorf("after the dead run's claim expired: %v", err)
	}
	after.release(ctx)

	// On a topology lockbench starts for the run there is nothing to claim.
	local := topotest.Local(t)
	if c, err := claimRun(ctx, local, "", "claimed", nil); c != nil || err != nil {
		t.Errorf("claim on lockbench's own topology: %v, %v; want none", c, err)
	}
}
