package variants

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// rueidislock renews its keys itself and does not say when. To tell a
// holder's margins (Renewed), a rueidislockLock watches the Lua scripts its
// Locker's client sends: an acquire (SET NX PXAT) or an extension (PEXPIREAT)
// of one of a lock's keys that succeeded sets that key's expiry, the
// deadline the script carries (the Locker computes it as its validity
// after a reading of the clock taken before the send). The lock holds
// while a majority of its keys do, so its expiry is the majority-th latest
// of them. The scripts are rueidislock's own, as of rueidis v1.0.79; a
// test fails if the watch stops seeing them.
//
// The same watch tells an acquire's AcquireOptions.Renewals of each
// extension of one of its lock's keys, as a renewal of the lease: renewed
// when the key was extended and a majority of the lock's keys is still
// ours (as far as the client knows: acquired or extended, not yet expired,
// not deleted, not found taken); not renewed (ErrLeaseLost) when the key
// was no longer ours or fewer than a majority are. A key's extension alone
// does not vouch for the lease: the lock is its majority.
var (
	rueidislockAcquireSHA = scriptSHA(`local r = redis.call("SET",KEYS[1],ARGV[1],"NX","PXAT",ARGV[2]);redis.call("GET",KEYS[1]);return r`)
	rueidislockExtendSHA  = scriptSHA(`if redis.call("GET",KEYS[1]) == ARGV[1] then local r = redis.call("PEXPIREAT",KEYS[1],ARGV[2]);redis.call("GET",KEYS[1]);return r end;return 0`)
	rueidislockDeleteSHA  = scriptSHA(`if redis.call("GET",KEYS[1]) == ARGV[1] then return redis.call("DEL",KEYS[1]) end;return 0`)
)

func scriptSHA(body string) string {
	sum := sha1.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}

// rueidislockKeys is the number of keys of one rueidislock lock.
const rueidislockKeys = 2*rueidislockMajority - 1

// rueidislockExpiry is what one client's Locker last set its keys' expiry
// to, by lock name and key index (Unix milliseconds), and who is told of
// each lock's renewals.
type rueidislockExpiry struct {
	prefix   string // the Locker's key prefix, ':' included
	validity time.Duration
	mu       sync.Mutex
	expiries map[string][]int64 // the latest expiry set, for the margins
	held     map[string][]int64 // the expiry of a key still ours, 0 when not
	watchers map[string]RenewalObserver
}

func newRueidislockExpiry(keyPrefix string, validity time.Duration) *rueidislockExpiry {
	return &rueidislockExpiry{prefix: keyPrefix + ":", validity: validity, expiries: map[string][]int64{},
		held: map[string][]int64{}, watchers: map[string]RenewalObserver{}}
}

// reset forgets the keys of the lock called name, before a new lease of
// it, whose renewals obs (nil: nobody) is told of.
func (e *rueidislockExpiry) reset(name string, obs RenewalObserver) {
	e.mu.Lock()
	delete(e.expiries, name)
	delete(e.held, name)
	if obs == nil {
		delete(e.watchers, name)
	} else {
		e.watchers[name] = obs
	}
	e.mu.Unlock()
}

// renewedAt is the lock's expiry less the validity: when the latest write
// of it that keeps a majority of its keys was sent, at the latest. Zero
// when no majority of keys was seen set.
func (e *rueidislockExpiry) renewedAt(name string) time.Time {
	e.mu.Lock()
	keys := slices.Clone(e.expiries[name])
	e.mu.Unlock()
	if len(keys) < rueidislockMajority {
		return time.Time{}
	}
	slices.Sort(keys)
	expiry := keys[len(keys)-rueidislockMajority] // the majority-th latest
	if expiry == 0 {
		return time.Time{}
	}
	return time.UnixMilli(expiry).Add(-e.validity)
}

// lockScript is one of the Locker's scripts on a key of a lock.
type lockScript struct {
	sha      string
	name     string // the lock's
	index    int    // of the key among the lock's
	deadline int64  // Unix ms
}

// parse reads cmd as one of the Locker's scripts on one of its keys.
func (e *rueidislockExpiry) parse(cmd []string) (lockScript, bool) {
	// EVALSHA sha 1 key token deadline, or EVAL body 1 key token deadline.
	if len(cmd) != 6 || (cmd[0] != "EVALSHA" && cmd[0] != "EVAL") || !strings.HasPrefix(cmd[3], e.prefix) {
		return lockScript{}, false
	}
	sha := cmd[1]
	if cmd[0] == "EVAL" {
		sha = scriptSHA(cmd[1])
	}
	index, name, ok := strings.Cut(cmd[3][len(e.prefix):], ":")
	i, err := strconv.Atoi(index)
	deadline, derr := strconv.ParseInt(cmd[5], 10, 64)
	if !ok || err != nil || derr != nil || i < 0 || i >= rueidislockKeys {
		return lockScript{}, false
	}
	return lockScript{sha: sha, name: name, index: i, deadline: deadline}, true
}

// watcher is who is told of the lock's renewals, nil for nobody.
func (e *rueidislockExpiry) watcher(name string) RenewalObserver {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.watchers[name]
}

// keys returns the lock's keys in m, made when missing; e.mu held.
func keysOf(m map[string][]int64, name string) []int64 {
	keys := m[name]
	if keys == nil {
		keys = make([]int64, rueidislockKeys)
		m[name] = keys
	}
	return keys
}

// saw notes a script the client sent and its reply; for an extension, it
// returns the lease's renewal outcome (see the comment at the top).
func (e *rueidislockExpiry) saw(s lockScript, reply rueidis.RedisResult) error {
	var n int64
	var err error
	switch s.sha {
	case rueidislockAcquireSHA:
		if str, err := reply.ToString(); err != nil || str != "OK" {
			return nil
		}
		n = 1
	case rueidislockExtendSHA, rueidislockDeleteSHA:
		if n, err = reply.AsInt64(); err != nil {
			return fmt.Errorf("variants: rueidislock extension: %w", err)
		}
	default:
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	held := keysOf(e.held, s.name)
	switch {
	case s.sha == rueidislockDeleteSHA:
		if n == 1 {
			held[s.index] = 0
		}
		return nil
	case n != 1:
		held[s.index] = 0 // an extension that found the key not ours
		return ErrLeaseLost
	}
	keys := keysOf(e.expiries, s.name)
	keys[s.index] = max(keys[s.index], s.deadline)
	held[s.index] = max(held[s.index], s.deadline)
	now, ours := time.Now().UnixMilli(), 0
	for _, until := range held {
		if until > now {
			ours++
		}
	}
	if ours < rueidislockMajority {
		return ErrLeaseLost
	}
	return nil
}

// watchedRueidis is a rueidis client whose scripts an expiry watches.
type watchedRueidis struct {
	rueidis.Client
	expiry *rueidislockExpiry
}

// Do sends cmd; a script of the Locker's is watched, and an extension is
// told to the lease's renewal watcher as one renewal.
func (c watchedRueidis) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	args := cmd.Commands() // read before Do, which may recycle cmd
	if len(args) > 0 && args[0] != "EVALSHA" && args[0] != "EVAL" {
		return c.Client.Do(ctx, cmd)
	}
	s, ok := c.expiry.parse(args)
	if !ok {
		return c.Client.Do(ctx, cmd)
	}
	var obs RenewalObserver
	if s.sha == rueidislockExtendSHA {
		obs = c.expiry.watcher(s.name)
	}
	var id int64
	if obs != nil {
		id = obs.RenewalStarted()
	}
	reply := c.Client.Do(ctx, cmd)
	err := c.expiry.saw(s, reply)
	if obs != nil {
		obs.RenewalEnded(id, err)
	}
	return reply
}
