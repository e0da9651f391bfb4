package runner

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// ErrRunIDInUse: another live run holds the run id on the target, and so
// would share its keys (and one run's cleanup would delete the other's
// locks).
var ErrRunIDInUse = errors.New("run id in use")

const (
	// ClaimTTL is how long the claim of a run id outlives the last renewal
	// of a run that died without releasing it.
	ClaimTTL = 15 * time.Second
	// claimRenewEvery is how often a run renews its claim.
	claimRenewEvery = ClaimTTL / 5
	// claimTimeout bounds each command on the claim.
	claimTimeout = 3 * time.Second
)

// ClaimKey is the key under the run's own prefix where a run claims its
// id on a server it did not start: a hash of the run's shard count
// ("shards") and one field per shard taking part ("1", "2", ...), each
// "<token> <deadline in server ms>".
func ClaimKey(runID string) string { return KeyPrefix(runID) + "claim" }

// claimScript takes or renews (idempotent for the same token) the claim of
// KEYS[1] for shard ARGV[2] of a run of ARGV[1] shards by token ARGV[3] for
// ARGV[4] ms. Fields of shards whose deadline passed are dropped first, so
// the claim of a run that died is free again after the TTL. It returns
// "ok", "shards:<n>" when the run id is held by a run of another shard
// count, or "taken" when the shard is held by another live process.
//
// Shards of one run recognise each other by the shard count alone: they
// share the run id and N, and a shard may join while its index is free.
var claimScript = variants.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[4])
local count = redis.call('HGET', KEYS[1], 'shards')
if count then
  local all = redis.call('HGETALL', KEYS[1])
  local live = 0
  for i = 1, #all, 2 do
    if all[i] ~= 'shards' then
      local deadline = string.match(all[i+1], ' (%d+)$')
      if deadline and tonumber(deadline) >= now then
        live = live + 1
      else
        redis.call('HDEL', KEYS[1], all[i])
      end
    end
  end
  if live == 0 then
    redis.call('DEL', KEYS[1])
    count = false
  end
end
if count and count ~= ARGV[1] then return 'shards:' .. count end
local held = redis.call('HGET', KEYS[1], ARGV[2])
if held and string.match(held, '^(%S+) ') ~= ARGV[3] then return 'taken' end
redis.call('HSET', KEYS[1], 'shards', ARGV[1], ARGV[2], ARGV[3] .. ' ' .. (now + ttl))
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 'ok'
`)

// releaseScript gives up shard ARGV[1]'s part of the claim KEYS[1] when
// token ARGV[2] holds it, and deletes the claim when no shard is left in
// it.
var releaseScript = variants.NewScript(`
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held and string.match(held, '^(%S+) ') == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
if redis.call('HLEN', KEYS[1]) == 1 and redis.call('HEXISTS', KEYS[1], 'shards') == 1 then
  redis.call('DEL', KEYS[1])
end
return 'ok'
`)

// claim is a run's hold on its id on the servers under test, renewed
// while the run goes on. A nil *claim holds nothing.
type claim struct {
	key, count, index, token string
	conns                    []clients.Client
	where                    string
	stop                     context.CancelFunc
	renewed                  sync.WaitGroup
}

// claimRun claims runID (shard of it, nil for the whole run) on the
// servers of topo, each master of independent ones, through connections
// of its own, so that sessions reopened between cells do not drop it. A
// topology lockbench started for this run is its own: nothing to claim
// (nil, nil). Another live run holding the id fails with ErrRunIDInUse;
// shards of one run (same id, same shard count, each index once) share
// it.
func claimRun(ctx context.Context, topo topologies.Topology, library, runID string, shard *workloads.Shard) (*claim, error) {
	if topo.Managed() {
		return nil, nil
	}
	c := &claim{key: ClaimKey(runID), count: "1", index: "1", token: newToken(), where: describeAccess(topo.Access())}
	if shard != nil {
		c.count, c.index = strconv.Itoa(shard.Count), strconv.Itoa(shard.Index)
	}
	conns, err := clients.Connect(ctx, topo.Access(), clients.Options{Library: library, PoolSize: 1})
	if err != nil {
		return nil, err
	}
	c.conns = conns
	for i, conn := range conns {
		if err := c.take(ctx, conn, runID); err != nil {
			c.conns = conns[:i] // release what was taken
			c.release(ctx)
			for _, conn := range conns[i:] {
				conn.Close()
			}
			return nil, err
		}
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = stop
	c.renewed.Go(func() { c.renew(rctx) })
	return c, nil
}

// take claims the id on one server.
func (c *claim) take(ctx context.Context, conn clients.Client, runID string) error {
	tctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	reply, err := claimScript.Run(tctx, conn, []string{c.key}, c.count, c.index, c.token, strconv.FormatInt(ClaimTTL.Milliseconds(), 10))
	if err != nil {
		return fmt.Errorf("runner: claim run id %s: %w", runID, err)
	}
	switch answer, _ := reply.(string); {
	case answer == "ok":
		return nil
	case answer == "taken" && c.count == "1":
		return fmt.Errorf("%w: another live run already uses run id %s on %s (a run that died frees it within %v)", ErrRunIDInUse, runID, c.where, ClaimTTL)
	case answer == "taken":
		return fmt.Errorf("%w: shard %s/%s of run %s already runs on %s (a shard that died frees it within %v)", ErrRunIDInUse, c.index, c.count, runID, c.where, ClaimTTL)
	default:
		return fmt.Errorf("%w: a live run of %s shard(s) holds run id %s on %s, this run has %s (a run that died frees it within %v)",
			ErrRunIDInUse, answer[len("shards:"):], runID, c.where, c.count, ClaimTTL)
	}
}

// renew renews the claim until ctx ends. A renewal that fails (a server
// paused or restarted) is tried again at the next tick; the script takes
// the claim again where the server lost it.
func (c *claim) renew(ctx context.Context) {
	tick := time.NewTicker(claimRenewEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for _, conn := range c.conns {
			tctx, cancel := context.WithTimeout(ctx, claimTimeout)
			_, _ = claimScript.Run(tctx, conn, []string{c.key}, c.count, c.index, c.token, strconv.FormatInt(ClaimTTL.Milliseconds(), 10))
			cancel()
		}
	}
}

// release stops the renewal and gives the claim up, deleting it when no
// other shard of the run is in it; it runs after an interrupt too.
func (c *claim) release(ctx context.Context) {
	if c == nil {
		return
	}
	if c.stop != nil {
		c.stop()
		c.renewed.Wait()
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
	defer cancel()
	for _, conn := range c.conns {
		_, _ = releaseScript.Run(rctx, conn, []string{c.key}, c.index, c.token)
		conn.Close()
	}
	c.conns = nil
}

// deleteRunKeys is DeleteKeys for the cleanup at a run's end: it leaves
// the run id's claim, which its holder releases itself (it may be another
// live run's).
func deleteRunKeys(ctx context.Context, conn variants.Conn, prefix string) error {
	return variants.ScanPrefix(ctx, conn, prefix, func(key string) error {
		if key == prefix+"claim" {
			return nil
		}
		if _, err := conn.Do(ctx, variants.Cmd("DEL", key)); err != nil {
			return fmt.Errorf("runner: delete %s: %w", key, err)
		}
		return nil
	})
}

// newToken is a random token naming one process's part of a claim.
func newToken() string {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// describeAccess names the servers of access for a message.
func describeAccess(a topologies.Access) string {
	if len(a.Endpoints) == 0 {
		return "the target"
	}
	s := a.Endpoints[0].String()
	if len(a.Endpoints) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(a.Endpoints)-1)
	}
	return s
}
