package variants

import (
	"context"
	_ "embed"
	"errors"
	"strconv"
	"time"
)

//go:embed lua/notify_acquire.lua
var notifyAcquireLua string

//go:embed lua/notify_release.lua
var notifyReleaseLua string

var (
	notifyAcquire = NewScript(notifyAcquireLua)
	notifyRelease = NewScript(notifyReleaseLua)
)

// The counters notify reports through Config.Note, one per acquisition
// but for NoteWokenBusy.
const (
	NoteFirstTry  = "first-try"  // acquired at the first try, without waiting
	NoteWoken     = "woken"      // acquired at the try that a wake token started
	NoteFallback  = "fallback"   // acquired at the try after a BLPOP that timed out
	NoteWokenBusy = "woken-busy" // a wake token whose try found the lock taken again (per try)
)

const (
	// notifyMaxBlock caps one BLPOP, whatever the retry policy: a waiter
	// tries again at least this often, notices the end of its context
	// within it, and stays inside go-redis' 3 s read timeout, which applies
	// to a blocking command sent as a generic one.
	notifyMaxBlock = time.Second
	// notifyLinger is how long a wake token lives when no waiter takes it,
	// and how much longer than its BLPOP a waiter's mark lives.
	notifyLinger = time.Second
)

func init() {
	Register(Info{
		Name: "notify",
		Kind: KindLock,
		Source: "Redisson's RedissonLock (unlock publishes to a per-lock channel its waiters subscribe to, " +
			"with a timed wait as fallback); against the polling of Redis in Action (Carlson 2013) §6.2.3 (retry after ~1 ms)",
		Summary: "lua-release whose release wakes one waiter. Acquire: Lua SET NX PX that, when busy, marks " +
			"the lock waited for ({name}:waiters, PX). Release: Lua compare-and-delete that, when it deleted " +
			"and the mark is set, LPUSHes one token to {name}:wake (LTRIM 0 0, PEXPIRE 1s). A waiter sends " +
			"BLPOP (at most the retry pause: the fallback) and the next try in one pipeline on a dedicated " +
			"connection, so Redis runs the try as soon as the token arrives",
		Claims:       Claims{TTL: true, OwnerCheckedRelease: true, AtomicRelease: true},
		DefaultRetry: "fixed:100ms",

		ClientMemoryKiB: map[string]int64{LibRueidis: 72, LibGoRedis: 64},
	}, func(cfg Config) (Lock, error) {
		mark := min(max(cfg.Retry.Max, time.Millisecond), notifyMaxBlock) + notifyLinger
		l := &notifyLock{base: newBase(cfg), markMillis: strconv.FormatInt(mark.Milliseconds(), 10)}
		l.id = l.token()
		return l, nil
	})
}

// notifyLock is lua-release whose waiters block instead of polling: a
// release that frees a lock someone waits for leaves a wake token in a
// list, and BLPOP hands it to one waiter, which then tries SET NX again.
//
// Why a list and not PUBLISH (Redisson's choice): a published message
// reaches only the subscribers listening at that instant, so a release
// that falls between a waiter's failed try and its SUBSCRIBE is lost to it
// and only its timed wait saves it; every subscriber of the channel wakes,
// and all but one find the lock taken again; and a subscription needs a
// connection in subscribe mode. A token in a list waits for its listener,
// BLPOP gives it to exactly one waiter (the one blocked longest: Redis
// serves blocked clients first come, first served), and the list never
// holds more than one token (LTRIM 0 0) nor outlives notifyLinger (PEXPIRE).
//
// The try that fails marks the lock as waited for in the same script, so a
// release between that try and the waiter's BLPOP finds the mark and
// leaves a token. Without a mark (nobody waited) a release leaves no key
// behind at all. The mark lives for the waiter's longest BLPOP plus
// notifyLinger and every failed try renews it, so it is there as long as
// someone waits; after the last waiter it expires, as do tokens nobody
// takes.
//
// A waiter writes BLPOP and its next try back to back on its connection.
// Redis does not read a blocked client's next command until BLPOP
// returns, and then runs it before it serves anyone else: the try happens
// on the server in the same instant as the wake-up, without a round trip
// to the client, and before the releaser, or a newcomer, can try again.
// So waiters take the lock about in the order they began to wait. A token
// may be stale (left by a release while no waiter was blocked); the try
// then finds the lock held and the waiter waits again (NoteWokenBusy).
// The retry policy is the fallback: BLPOP blocks for at most the policy's
// pause (at least 1 ms, at most notifyMaxBlock), and the try runs whether
// or not a token came. That covers what no token announces: a lock that
// expired (a crashed holder) rather than being released, and a token taken
// by a waiter that then gave up.
//
// BLPOP blocks its connection, so a waiter waits on a dedicated one
// (Conn.Dedicated, which routes it to the key's node in a cluster), taken
// afresh for each wait: a connection held for the whole wait would stay
// with the node it was opened to, which after a Sentinel failover is the
// old master, still a master until Sentinel demotes it — measured, such
// waiters waited (and took the lock) there while the others used the new
// master. The lock key and its helper keys share the hash tag {name}, so
// they live in one cluster slot. A waiter's BLPOP also watches a key of its own, into
// which a token is pushed when its context ends, so that it returns at
// once instead of at its timeout. The first try and the release go over
// the shared connection: an uncontended cycle costs two commands, as
// lua-release's does.
type notifyLock struct {
	base
	markMillis string // how long a waiter's mark lives, PX argument
	id         string // names this client's cancel key
}

var _ Lock = (*notifyLock)(nil)

// notifyKeys are the keys of the lock called name, as one client sees them.
type notifyKeys struct {
	lock    string // the lock: token, PX ttl
	waiters string // the mark that someone waits for the lock
	wake    string // the wake list: at most one token
	cancel  string // this client's own list, pushed when its context ends
}

func (l *notifyLock) keys(name string) notifyKeys {
	k := l.cfg.Prefix + "{" + name + "}"
	return notifyKeys{lock: k, waiters: k + ":waiters", wake: k + ":wake", cancel: k + ":cancel:" + l.id}
}

func (l *notifyLock) Acquire(ctx context.Context, name string) (Lease, error) {
	keys := l.keys(name)
	deadline := time.Now().Add(l.cfg.AcquireTimeout)
	waits := l.cfg.Retry.Kind != RetryNone
	lease, err := l.try(ctx, l.cfg.Conn, keys, waits, NoteFirstTry)
	if !errors.Is(err, ErrBusy) || !waits {
		return lease, err
	}
	for attempt := 0; ; attempt++ {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return nil, ErrTimeout
		}
		block := max(min(remaining, l.cfg.Retry.Delay(attempt, l.rnd), notifyMaxBlock), time.Millisecond)
		err = l.cfg.Conn.Dedicated(ctx, keys.lock, func(conn Conn) error {
			lease, err = l.waitAndTry(ctx, conn, keys, block)
			return err
		})
		if !errors.Is(err, ErrBusy) {
			if err != nil {
				return nil, err
			}
			return lease, nil
		}
	}
}

// waitAndTry blocks in BLPOP on the wake list for at most block and tries
// again as soon as it returns, both in one pipeline on conn.
func (l *notifyLock) waitAndTry(ctx context.Context, conn Conn, keys notifyKeys, block time.Duration) (Lease, error) {
	unblock := context.AfterFunc(ctx, func() { l.unblock(keys) })
	// The deadline bounds the wait should the server stop answering; it
	// also lets rueidis read the replies on this goroutine rather than
	// through its background reader, one hand-over less per wake-up.
	pctx, cancel := context.WithTimeout(ctx, block+notifyLinger)
	defer cancel()
	token := l.token()
	tryKeys, tryArgs := []string{keys.lock, keys.waiters}, []string{token, l.ttlMillis(), l.markMillis}
	res := conn.DoMulti(pctx,
		Command{Argv: []string{"BLPOP", keys.wake, keys.cancel, strconv.FormatFloat(block.Seconds(), 'f', 3, 64)}, Keys: []int{1, 2}},
		notifyAcquire.command("EVALSHA", notifyAcquire.sha, tryKeys, tryArgs))
	unblock()
	if err := res[0].Err; err != nil {
		if res[1].Err == nil && res[1].Value == int64(1) { // the try took the lock all the same
			_ = l.release(context.WithoutCancel(ctx), keys, token)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if IsNoScript(res[1].Err) {
		// A server that lost its scripts: the try again, by EVAL.
		res[1].Value, res[1].Err = notifyAcquire.Run(ctx, conn, tryKeys, tryArgs...)
	}
	how := NoteFallback
	if popped, _ := res[0].Value.([]any); len(popped) == 2 && popped[0] == keys.wake {
		how = NoteWoken
	}
	lease, err := l.settle(ctx, keys, token, res[1].Value, res[1].Err, how)
	if how == NoteWoken && errors.Is(err, ErrBusy) {
		l.cfg.Note(NoteWokenBusy)
	}
	return lease, err
}

// unblock wakes this client's BLPOP on keys when its context has ended.
func (l *notifyLock) unblock(keys notifyKeys) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyLinger)
	defer cancel()
	l.cfg.Conn.DoMulti(ctx, Cmd("LPUSH", keys.cancel, "1"),
		Cmd("PEXPIRE", keys.cancel, strconv.FormatInt(notifyLinger.Milliseconds(), 10)))
}

// try runs the acquire script once on conn, marking the lock as waited for
// when mark is set and the lock is held.
func (l *notifyLock) try(ctx context.Context, conn Conn, keys notifyKeys, mark bool, how string) (Lease, error) {
	token, markMillis := l.token(), "0"
	if mark {
		markMillis = l.markMillis
	}
	reply, err := notifyAcquire.Run(ctx, conn, []string{keys.lock, keys.waiters}, token, l.ttlMillis(), markMillis)
	return l.settle(ctx, keys, token, reply, err, how)
}

// settle turns the acquire script's reply into the try's outcome, reports
// it to OnAttempt, and an acquisition to Note under how. A lease taken
// after ctx ended is given back, and ctx's error returned.
func (l *notifyLock) settle(ctx context.Context, keys notifyKeys, token string, reply any, err error, how string) (Lease, error) {
	var acquired Lease
	switch {
	case err != nil:
	case reply == int64(1):
		acquired = &lease{key: keys.lock, token: token, release: func(ctx context.Context, _, token string) error {
			return l.release(ctx, keys, token)
		}}
	default:
		err = ErrBusy
	}
	if ctx.Err() != nil {
		if acquired != nil {
			_ = acquired.Release(context.WithoutCancel(ctx))
		}
		return nil, ctx.Err()
	}
	l.cfg.OnAttempt(err)
	if err == nil {
		l.cfg.Note(how)
	}
	return acquired, err
}

// release deletes the lock if it still holds token and, when someone waits,
// leaves a wake token.
func (l *notifyLock) release(ctx context.Context, keys notifyKeys, token string) error {
	n, err := notifyRelease.Run(ctx, l.cfg.Conn, []string{keys.lock, keys.waiters, keys.wake},
		token, strconv.FormatInt(notifyLinger.Milliseconds(), 10))
	if err != nil {
		return err
	}
	if n == int64(0) {
		return ErrLeaseLost
	}
	return nil
}
