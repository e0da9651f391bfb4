package variants

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// RueidisNative is implemented by a Conn on rueidis that hands out its
// own client, for the variants that wrap a lock library.
type RueidisNative interface {
	// Rueidis returns the client and the options it was built from.
	Rueidis() (rueidis.Client, rueidis.ClientOption)
}

// GoRedisNative is implemented by a Conn on go-redis that hands out its
// own client, for the variants that wrap a lock library.
type GoRedisNative interface {
	// GoRedis returns the client.
	GoRedis() redis.UniversalClient
}

// Unwrap returns the connection under conn's *Counted layers.
func Unwrap(conn Conn) Conn {
	for {
		c, ok := conn.(*Counted)
		if !ok {
			return conn
		}
		conn = c.conn
	}
}

// commandsOf is the command counter of conn, nil when it is not counted.
func commandsOf(conn Conn) *atomic.Int64 {
	if c, ok := conn.(*Counted); ok {
		return &c.count.n
	}
	return nil
}

// nativeRueidis returns the rueidis client under conn, its options, and
// the client wrapped so that the commands sent through it count in
// conn's counter (Counted never sees a library's commands).
func nativeRueidis(variant string, conn Conn) (counted rueidis.Client, opt rueidis.ClientOption, err error) {
	n, ok := Unwrap(conn).(RueidisNative)
	if !ok {
		return nil, opt, fmt.Errorf("variants: %s needs a %s connection", variant, LibRueidis)
	}
	client, opt := n.Rueidis()
	if client == nil {
		return nil, opt, fmt.Errorf("variants: %s needs a client, not a dedicated connection", variant)
	}
	return countRueidis(client, commandsOf(conn)), opt, nil
}

// nativeGoRedis returns the go-redis client under conn, wrapped so that
// the commands the lock libraries send through it count in conn's
// counter.
func nativeGoRedis(variant string, conn Conn) (redis.UniversalClient, error) {
	n, ok := Unwrap(conn).(GoRedisNative)
	if !ok {
		return nil, fmt.Errorf("variants: %s needs a %s connection", variant, LibGoRedis)
	}
	client := n.GoRedis()
	if client == nil {
		return nil, fmt.Errorf("variants: %s needs a client, not a dedicated connection", variant)
	}
	if commands := commandsOf(conn); commands != nil {
		return countedGoRedis{client, commands}, nil
	}
	return client, nil
}

// countRueidis returns client with its commands counted in commands (the
// client itself when commands is nil). A hook on the shared client would
// count every variant's commands twice, and those of every cell: the
// wrapper counts only what goes through it.
func countRueidis(client rueidis.Client, commands *atomic.Int64) rueidis.Client {
	if commands == nil {
		return client
	}
	return countedRueidis{client, commands}
}

// countedRueidis counts the commands sent with Do and DoMulti, the calls
// the wrapped libraries make (rueidislock's Lua scripts; the command
// adapter redsync uses). Cached reads, streams and dedicated connections
// pass uncounted: the libraries here do not use them.
type countedRueidis struct {
	rueidis.Client
	commands *atomic.Int64
}

func (c countedRueidis) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.commands.Add(1)
	return c.Client.Do(ctx, cmd)
}

func (c countedRueidis) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	c.commands.Add(int64(len(cmds)))
	return c.Client.DoMulti(ctx, cmds...)
}

// countedGoRedis counts the commands of the go-redis calls the wrapped
// libraries make: redsync's go-redis pool (GET, SET, SETNX, PTTL, EVALSHA,
// EVAL, SCRIPT LOAD) and redislock (redis.Scripter). Every other call
// passes uncounted.
type countedGoRedis struct {
	redis.UniversalClient
	commands *atomic.Int64
}

var _ redis.Scripter = countedGoRedis{}

func (c countedGoRedis) Get(ctx context.Context, key string) *redis.StringCmd {
	c.commands.Add(1)
	return c.UniversalClient.Get(ctx, key)
}

func (c countedGoRedis) Set(ctx context.Context, key string, value any, expiration time.Duration) *redis.StatusCmd {
	c.commands.Add(1)
	return c.UniversalClient.Set(ctx, key, value, expiration)
}

func (c countedGoRedis) SetNX(ctx context.Context, key string, value any, expiration time.Duration) *redis.BoolCmd {
	c.commands.Add(1)
	return c.UniversalClient.SetNX(ctx, key, value, expiration)
}

func (c countedGoRedis) PTTL(ctx context.Context, key string) *redis.DurationCmd {
	c.commands.Add(1)
	return c.UniversalClient.PTTL(ctx, key)
}

func (c countedGoRedis) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	c.commands.Add(1)
	return c.UniversalClient.Eval(ctx, script, keys, args...)
}

func (c countedGoRedis) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	c.commands.Add(1)
	return c.UniversalClient.EvalSha(ctx, sha1, keys, args...)
}

func (c countedGoRedis) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	c.commands.Add(1)
	return c.UniversalClient.EvalRO(ctx, script, keys, args...)
}

func (c countedGoRedis) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	c.commands.Add(1)
	return c.UniversalClient.EvalShaRO(ctx, sha1, keys, args...)
}

func (c countedGoRedis) ScriptExists(ctx context.Context, hashes ...string) *redis.BoolSliceCmd {
	c.commands.Add(1)
	return c.UniversalClient.ScriptExists(ctx, hashes...)
}

func (c countedGoRedis) ScriptLoad(ctx context.Context, script string) *redis.StringCmd {
	c.commands.Add(1)
	return c.UniversalClient.ScriptLoad(ctx, script)
}

// settingsLine is the Settings line of a variant wrapping a lock
// library: the library's own defaults it kept, then what the run set.
func settingsLine(library string, own, given []string) string {
	var parts []string
	if len(own) > 0 {
		parts = append(parts, "library defaults: "+strings.Join(own, ", "))
	}
	if len(given) > 0 {
		parts = append(parts, strings.Join(given, ", "))
	}
	return strings.Join(parts, "; ")
}

// givenRetry describes the run's retry of a library variant.
func givenRetry(cfg Config) string {
	if cfg.Retry.Kind == RetryNone {
		return "one try (--retry none)"
	}
	return fmt.Sprintf("retry %v (--retry) up to %v", cfg.Retry, cfg.AcquireTimeout)
}
