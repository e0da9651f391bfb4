package clients

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// goRedisRefresh has a go-redis cluster client read the cluster's slot
// map every ShardsRefreshInterval in the background, as rueidis reads its
// shards. go-redis reads it again only when a command met MOVED, ASK or
// READONLY, on reloadOnFailure's errors, or when a command finds the map
// older than ClusterStateReloadInterval: with a master paused and every
// client's command waiting on it, none of those came before the commands
// timed out, and the tries after them went to the paused master again.
// Measured with the timeouts also not sent again (notSentAgain): before,
// go-redis' clients acquired on the promoted replica 3.6-3.9 s after the
// promotion, rueidis' 2.4-2.9 s; after, go-redis' 0.6-2.3 s (median
// 1.0 s), rueidis' 2.5-2.7 s (TestClusterFollowTime).
//
// go-redis reads the map from one node picked at random, and waited its
// ReadTimeout (CommandTimeout) when that node was the paused master,
// holding every reload after it: the slot map's reads now give up after
// slotsReadTimeout (reloadOnFailure), and go-redis tries the next node.
// (Its ClusterOptions.ClusterSlots, which would let lockbench ask every
// node at once, rewrites loopback addresses to an empty host in go-redis
// 9.23, so that the map no longer matches the addresses in MOVED replies.)
type goRedisRefresh struct {
	stop context.CancelFunc
	done sync.WaitGroup
}

// refreshSlots starts reading cluster's slot map every
// ShardsRefreshInterval until close.
func refreshSlots(cluster *redis.ClusterClient) *goRedisRefresh {
	ctx, stop := context.WithCancel(context.Background())
	r := &goRedisRefresh{stop: stop}
	r.done.Go(func() {
		ticker := time.NewTicker(ShardsRefreshInterval)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				cluster.ReloadState(ctx)
			}
		}
	})
	return r
}

// close stops the refresh.
func (r *goRedisRefresh) close() {
	r.stop()
	r.done.Wait()
}
