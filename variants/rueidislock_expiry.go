package variants

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
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
var (
	rueidislockAcquireSHA = scriptSHA(`local r = redis.call("SET",KEYS[1],ARGV[1],"NX","PXAT",ARGV[2]);redis.call("GET",KEYS[1]);return r`)
	rueidislockExtendSHA  = scriptSHA(`if redis.call("GET",KEYS[1]) == ARGV[1] then local r = redis.call("PEXPIREAT",KEYS[1],ARGV[2]);redis.call("GET",KEYS[1]);return r end;return 0`)
)

func scriptSHA(body string) string {
	sum := sha1.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}

// rueidislockExpiry is what one client's Locker last set its keys' expiry
// to, by lock name and key index (Unix milliseconds).
type rueidislockExpiry struct {
	prefix   string // the Locker's key prefix, ':' included
	validity time.Duration
	mu       sync.Mutex
	expiries map[string][]int64
}

func newRueidislockExpiry(keyPrefix string, validity time.Duration) *rueidislockExpiry {
	return &rueidislockExpiry{prefix: keyPrefix + ":", validity: validity, expiries: map[string][]int64{}}
}

// reset forgets the keys of the lock called name, before a new lease of it.
func (e *rueidislockExpiry) reset(name string) {
	e.mu.Lock()
	delete(e.expiries, name)
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

// saw notes a script the client sent and its reply.
func (e *rueidislockExpiry) saw(cmd []string, reply rueidis.RedisResult) {
	// EVALSHA sha 1 key token deadline, or EVAL body 1 key token deadline.
	if len(cmd) != 6 || (cmd[0] != "EVALSHA" && cmd[0] != "EVAL") || !strings.HasPrefix(cmd[3], e.prefix) {
		return
	}
	sha := cmd[1]
	if cmd[0] == "EVAL" {
		sha = scriptSHA(cmd[1])
	}
	switch sha {
	case rueidislockAcquireSHA:
		if s, err := reply.ToString(); err != nil || s != "OK" {
			return
		}
	case rueidislockExtendSHA:
		if n, err := reply.AsInt64(); err != nil || n != 1 {
			return
		}
	default:
		return
	}
	index, name, ok := strings.Cut(cmd[3][len(e.prefix):], ":")
	i, err := strconv.Atoi(index)
	deadline, derr := strconv.ParseInt(cmd[5], 10, 64)
	if !ok || err != nil || derr != nil || i < 0 || i >= 2*rueidislockMajority-1 {
		return
	}
	e.mu.Lock()
	keys := e.expiries[name]
	if keys == nil {
		keys = make([]int64, 2*rueidislockMajority-1)
		e.expiries[name] = keys
	}
	keys[i] = max(keys[i], deadline)
	e.mu.Unlock()
}

// watchedRueidis is a rueidis client whose scripts an expiry watches.
type watchedRueidis struct {
	rueidis.Client
	expiry *rueidislockExpiry
}

func (c watchedRueidis) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	args := cmd.Commands() // read before Do, which may recycle cmd
	if len(args) > 0 && args[0] != "EVALSHA" && args[0] != "EVAL" {
		return c.Client.Do(ctx, cmd)
	}
	args = slices.Clone(args)
	reply := c.Client.Do(ctx, cmd)
	c.expiry.saw(args, reply)
	return reply
}
