package variants

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// The counters wait-replicas reports through Config.Note.
const (
	NoteAcked   = "acked"   // an acquisition a replica acknowledged
	NoteUnacked = "unacked" // an acquisition kept although no replica acknowledged it
	// NoteUnackedReleased: with Config.WaitStrict, an acquisition no
	// replica acknowledged, released and tried again (a busy try).
	NoteUnackedReleased = "unacked-released"
)

const (
	// waitTimeoutMax caps WAIT's timeout, TTL/10 otherwise: replicas on a
	// healthy network acknowledge within milliseconds, and a replica that
	// does not costs the acquisition the whole timeout, the lock held.
	waitTimeoutMax = 50 * time.Millisecond
	// replicasCheckEvery is how often a client asks a master (ROLE) how
	// many replicas it has, per lock name.
	replicasCheckEvery = time.Second
)

func init() {
	Register(Info{
		Name: "wait-replicas",
		Kind: KindLock,
		Source: "the Redis WAIT command; the failover gap of 【Redis应用】分布式锁 §1.7 (a master fails before " +
			"replicating the lock key) and of Distributed Locks with Redis (redis.io): Why Failover-based Implementations Are Not Enough",
		Summary: "lua-release that waits for a replica: SET key token NX PX ttl, then WAIT 1 timeout " +
			"(TTL/10, 1ms-50ms) on the same dedicated connection, when the master has a replica (ROLE, " +
			"asked once a second). An acquisition no replica acknowledged is kept and counted (unacked), " +
			"or with --wait-strict released and tried again. Release: Lua compare-and-delete",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true},
		DefaultRetry: "fixed:1ms",

		ClientMemoryKiB: map[string]int64{LibRueidis: 72, LibGoRedis: 56},
	}, func(cfg Config) (Lock, error) {
		timeout := min(max(cfg.TTL/10, time.Millisecond), waitTimeoutMax)
		return &waitReplicasLock{
			base:       newBase(cfg),
			waitMillis: strconv.FormatInt(timeout.Milliseconds(), 10),
			replicas:   map[string]replicasSeen{},
		}, nil
	})
}

// waitReplicasLock is lua-release whose acquire does not return before a
// replica has the lock key, or WAIT's timeout has passed. Replication stays
// asynchronous: WAIT only says how many replicas have acknowledged the
// write so far, so it narrows the window in which a failover loses a lock
// just taken but does not close it (a failover may promote a replica that
// did not acknowledge, and an unacknowledged lock is still held) — hence
// no failover claim. The acquisitions a replica acknowledged and those
// none did are counted (Config.Note: acked, unacked), so a run shows how
// often the window was open.
//
// WAIT's numreplicas is 1: one replica that has the lock key is what a
// promoted replica needs to have it too, while waiting for every replica
// would let the slowest one stall each acquisition. A master without
// replicas would not answer WAIT 1 at once but only at its timeout, so the
// variant asks the master (ROLE) how many replicas are online, at most
// once a second per lock name, and when there are none it sends no WAIT:
// the acquisition is unacked at once. So on a single node or a cluster
// without replicas it works as lua-release whose every acquisition is
// unacked; after a failover that leaves the master alone, acquisitions
// wait out WAIT's timeout until the next ROLE (within a second), then are
// unacked at once.
//
// WAIT counts the writes of its own connection, so the SET and the WAIT go
// over one dedicated connection (Conn.Dedicated, to the key's master in a
// cluster), which also keeps WAIT's blocking off the shared, pipelined
// connection. Each try takes one of its own, so that the tries after a
// failover go to the new master: a connection held across the retries of
// a blocking acquire stays with the node it was opened to, which after a
// Sentinel failover is the old master, still a master until Sentinel
// demotes it (seconds later) — measured, those tries took the lock there
// while the other clients took it on the new one. The release goes over
// the shared connection and does not wait. With
// Config.WaitStrict an unacknowledged acquisition is released and the try
// counts as busy, so without replicas nothing is ever acquired and
// acquires time out.
type waitReplicasLock struct {
	base
	waitMillis string // WAIT's timeout in milliseconds

	mu       sync.Mutex
	replicas map[string]replicasSeen // by key: its master's replicas, as last seen
}

// replicasSeen is how many replicas a master reported, and when.
type replicasSeen struct {
	online int
	at     time.Time
}

var _ Lock = (*waitReplicasLock)(nil)

func (l *waitReplicasLock) Acquire(ctx context.Context, name string) (Lease, error) {
	key := l.key(name)
	var acked bool
	lease, err := l.acquire(ctx, func(ctx context.Context) (Lease, error) {
		var got Lease
		err := l.cfg.Conn.Dedicated(ctx, key, func(conn Conn) error {
			// A try that takes longer than the TTL holds nothing any more.
			// The deadline also lets rueidis read the replies on this
			// goroutine rather than through its background reader.
			ctx, cancel := context.WithTimeout(ctx, l.cfg.TTL)
			defer cancel()
			var err error
			got, acked, err = l.try(ctx, conn, key)
			return err
		})
		return got, err
	})
	if err != nil {
		return nil, err
	}
	if acked {
		l.cfg.Note(NoteAcked)
	} else {
		l.cfg.Note(NoteUnacked)
	}
	return lease, nil
}

// try sets the lock on conn and waits for a replica to acknowledge it; it
// reports whether one did.
func (l *waitReplicasLock) try(ctx context.Context, conn Conn, key string) (Lease, bool, error) {
	token := l.token()
	reply, err := conn.Do(ctx, Cmd("SET", key, token, "NX", "PX", l.ttlMillis()))
	if err != nil {
		return nil, false, err
	}
	if reply == nil {
		return nil, false, ErrBusy
	}
	acquired := &lease{key: key, token: token, release: l.compareAndDelete}
	acked, err := l.waitForReplica(ctx, conn, key)
	if err != nil {
		// Held, but whether a replica has it is unknown: give it back.
		_ = acquired.Release(context.WithoutCancel(ctx))
		return nil, false, err
	}
	if acked || !l.cfg.WaitStrict {
		return acquired, acked, nil
	}
	l.cfg.Note(NoteUnackedReleased)
	if err := acquired.Release(ctx); err != nil && !errors.Is(err, ErrLeaseLost) {
		return nil, false, err
	}
	return nil, false, ErrBusy
}

// waitForReplica waits until a replica has acknowledged conn's writes, or
// WAIT's timeout; it does not wait when the master has no replica online.
func (l *waitReplicasLock) waitForReplica(ctx context.Context, conn Conn, key string) (bool, error) {
	online, err := l.replicasOnline(ctx, conn, key)
	if err != nil || online == 0 {
		return false, err
	}
	n, err := conn.Do(ctx, Bare("WAIT", "1", l.waitMillis))
	if err != nil {
		return false, fmt.Errorf("variants: WAIT: %w", err)
	}
	acks, _ := n.(int64)
	return acks >= 1, nil
}

// replicasOnline returns how many replicas the master of key reported
// online (ROLE), asking it again when the last answer is older than
// replicasCheckEvery; 1 when the server refuses to answer.
func (l *waitReplicasLock) replicasOnline(ctx context.Context, conn Conn, key string) (int, error) {
	l.mu.Lock()
	seen, ok := l.replicas[key]
	l.mu.Unlock()
	if ok && time.Since(seen.at) < replicasCheckEvery {
		return seen.online, nil
	}
	reply, err := conn.Do(ctx, Bare("ROLE"))
	online := 0
	var refused *ServerError
	switch {
	case errors.As(err, &refused):
		// A server that will not say (ROLE renamed or denied by an ACL, or
		// miniredis, which lacks it): assume a replica, and let WAIT tell.
		online = 1
	case err != nil:
		return 0, fmt.Errorf("variants: ROLE: %w", err)
	default:
		// A master answers ["master", offset, [[ip, port, offset], ...]].
		role, _ := reply.([]any)
		if len(role) != 3 || role[0] != "master" {
			return 0, fmt.Errorf("variants: ROLE replied %v, not a master's role", reply)
		}
		replicas, _ := role[2].([]any)
		online = len(replicas)
	}
	l.mu.Lock()
	l.replicas[key] = replicasSeen{online: online, at: time.Now()}
	l.mu.Unlock()
	return online, nil
}
