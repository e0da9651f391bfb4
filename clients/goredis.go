package clients

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// goRedisDoer is what *redis.Client and *redis.Conn share.
type goRedisDoer interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
	Pipeline() redis.Pipeliner
}

type goRedisConn struct {
	doer   goRedisDoer
	client *redis.Client // nil on a dedicated connection
}

var _ Client = (*goRedisConn)(nil)

// quietGoRedis stops go-redis from logging to stderr: every error it would
// log also comes back from the call that met it, where it is counted.
var quietGoRedis sync.Once

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

func newGoRedis(ep topologies.Endpoint, poolSize int) *goRedisConn {
	quietGoRedis.Do(func() { redis.SetLogger(discardLogger{}) })
	c := redis.NewClient(&redis.Options{
		Addr:                  ep.Addr,
		Username:              ep.Username,
		Password:              ep.Password,
		DB:                    ep.DB,
		TLSConfig:             ep.TLS,
		PoolSize:              poolSize,
		DialTimeout:           ConnectTimeout,
		MaxRetries:            -1, // errors are counted, not hidden
		ContextTimeoutEnabled: true,
		DisableIdentity:       true,
	})
	return &goRedisConn{doer: c, client: c}
}

func args(cmd variants.Command) []any {
	a := make([]any, len(cmd.Argv))
	for i, s := range cmd.Argv {
		a[i] = s
	}
	return a
}

func (g *goRedisConn) Do(ctx context.Context, cmd variants.Command) (any, error) {
	return decodeGoRedis(g.doer.Do(ctx, args(cmd)...).Result())
}

func (g *goRedisConn) DoMulti(ctx context.Context, cmds ...variants.Command) []variants.Result {
	pipe := g.doer.Pipeline()
	pending := make([]*redis.Cmd, len(cmds))
	for i, c := range cmds {
		pending[i] = pipe.Do(ctx, args(c)...)
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own error
	out := make([]variants.Result, len(cmds))
	for i, p := range pending {
		out[i].Value, out[i].Err = decodeGoRedis(p.Result())
	}
	return out
}

func (g *goRedisConn) Dedicated(ctx context.Context, fn func(variants.Conn) error) error {
	if g.client == nil {
		return fn(g)
	}
	conn := g.client.Conn()
	defer conn.Close()
	return fn(&goRedisConn{doer: conn})
}

func (g *goRedisConn) Close() {
	if g.client != nil {
		_ = g.client.Close()
	}
}

func decodeGoRedis(v any, err error) (any, error) {
	if err == nil {
		return goRedisArray(v), nil
	}
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	var re redis.Error
	if errors.As(err, &re) {
		return nil, &variants.ServerError{Msg: re.Error()}
	}
	return nil, err
}

// goRedisArray turns the error replies inside an array (an EXEC's, say)
// into *variants.ServerError, as at top level.
func goRedisArray(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	for i, e := range a {
		if re, ok := e.(redis.Error); ok {
			a[i] = &variants.ServerError{Msg: re.Error()}
		} else {
			a[i] = goRedisArray(e)
		}
	}
	return a
}
