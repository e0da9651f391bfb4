package clients

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// goRedisDoer is what go-redis' clients and its *redis.Conn share.
type goRedisDoer interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
	Pipeline() redis.Pipeliner
	TxPipeline() redis.Pipeliner
}

type goRedisConn struct {
	doer   goRedisDoer
	client redis.UniversalClient // nil on a dedicated connection
	// dedicating hands out the dedicated connections: client itself, or
	// a client with a pool of its own (see newGoRedis).
	dedicating redis.UniversalClient
	moved      *goRedisMoved     // a dedicated connection in a cluster: follows MOVED once
	slots      []*goRedisRefresh // a cluster client's (and its dedicating one's), stopped with it
}

var (
	_ Client                 = (*goRedisConn)(nil)
	_ variants.GoRedisNative = (*goRedisConn)(nil)
)

// quietGoRedis stops go-redis from logging to stderr: every error it would
// log also comes back from the call that met it, where it is counted.
var quietGoRedis sync.Once

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

// maxSharedPool bounds the connections per node that go-redis' ordinary
// commands share. One command goes on a connection at a time, so past a
// few hundred connections more of them raise no throughput but cost CPU
// per command, in lockbench and in Redis. At 10,000 clients (lua-release,
// 1,000 keys, 10 s, on 2 cores at load 6-10) Redis ran 203,000-385,000
// commands with pools of 100-250, 145,000-173,000 with 500 and
// 97,000-143,000 with 2,000, whose clients waited 0.65-0.81 s a command
// in go-redis' pool and whose releases met their 2 s timeout; at 1,000
// clients, 409,000-418,000 with 256 against 209,000-307,000 with a
// connection per client.
const maxSharedPool = 256

// newGoRedis builds the client of access with poolSize connections per
// node in all. Past maxSharedPool the ordinary commands share
// maxSharedPool of them and the dedicated connections (Dedicated) the
// rest, from a second client: a variant that holds a dedicated connection
// through a blocking wait (notify's BLPOP, wait-replicas' WAIT) must not
// take the connections the releases it waits for need.
func newGoRedis(access topologies.Access, poolSize int, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *goRedisConn {
	quietGoRedis.Do(func() { redis.SetLogger(discardLogger{}) })
	shared := min(poolSize, maxSharedPool)
	c, slots := buildGoRedis(access, shared, dial)
	g := &goRedisConn{doer: c, client: c, dedicating: c}
	if poolSize > shared {
		var more []*goRedisRefresh
		g.dedicating, more = buildGoRedis(access, poolSize-shared, dial)
		slots = append(slots, more...)
	}
	g.slots = slots
	return g
}

// buildGoRedis builds a client of access with poolSize connections per
// node (0: go-redis' default), and for a cluster the refresh of its slot
// map (goRedisRefresh), to stop with it.
func buildGoRedis(access topologies.Access, poolSize int, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (redis.UniversalClient, []*goRedisRefresh) {
	ep := access.Endpoints[0]
	var addrs []string
	for _, e := range access.Endpoints {
		addrs = append(addrs, e.Addr)
	}
	// Errors are counted, not hidden: no command is sent again
	// (MaxRetries -1) and a dial is tried once (DialerRetries 1; go-redis'
	// default of 5 tries 100 ms apart stalled every command to a killed
	// node for half a second or more). A reply waits CommandTimeout at
	// most (blocking commands their block time more: go-redis adds it).
	switch {
	case access.MasterName != "":
		return redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: access.MasterName, SentinelAddrs: addrs,
			Username: ep.Username, Password: ep.Password, SentinelUsername: ep.Username, SentinelPassword: ep.Password,
			DB: ep.DB, TLSConfig: ep.TLS, PoolSize: poolSize, DialTimeout: ConnectTimeout, DialerRetries: 1, ReadTimeout: CommandTimeout, WriteTimeout: CommandTimeout,
			MaxRetries: -1, ContextTimeoutEnabled: true, DisableIdentity: true,
			Dialer: dial,
		}), nil
	case access.Mode == topologies.ModeCluster:
		opt := &redis.ClusterOptions{
			Addrs: addrs, Username: ep.Username, Password: ep.Password, TLSConfig: ep.TLS,
			PoolSize: poolSize, DialTimeout: ConnectTimeout, DialerRetries: 1, ReadTimeout: CommandTimeout, WriteTimeout: CommandTimeout,
			MaxRetries: -1, ContextTimeoutEnabled: true, DisableIdentity: true,
			MaintNotificationsConfig: noMaintNotifications(),
			Dialer:                   dial,
			// The slot map is read every ShardsRefreshInterval, in the
			// background (goRedisRefresh) and when a command finds it
			// older.
			ClusterStateReloadInterval: ShardsRefreshInterval,
		}
		cluster := redis.NewClusterClient(opt)
		cluster.OnNewNode(func(node *redis.Client) { node.AddHook(reloadOnFailure{cluster}) })
		return cluster, []*goRedisRefresh{refreshSlots(cluster)}
	}
	return redis.NewClient(&redis.Options{
		Addr: ep.Addr, Username: ep.Username, Password: ep.Password, DB: ep.DB, TLSConfig: ep.TLS,
		PoolSize: poolSize, DialTimeout: ConnectTimeout, DialerRetries: 1, ReadTimeout: CommandTimeout, WriteTimeout: CommandTimeout,
		MaxRetries:            -1, // errors are counted, not hidden
		ContextTimeoutEnabled: true, DisableIdentity: true,
		MaintNotificationsConfig: noMaintNotifications(),
		Dialer:                   dial,
	}), nil
}

// noMaintNotifications turns off go-redis' maintenance notifications
// (Redis Enterprise's MOVING / MIGRATING pushes), as go-redis' own
// FailoverClient does. In their default mode, auto, every new connection
// sends CLIENT MAINT_NOTIFICATIONS, a command of lockbench's count that
// the Redis under test never asked for, and when a server refuses it (any
// Redis before 8) go-redis 9.23 turns the mode off by writing to options
// that a client's dedicated connections (Client.Conn) share without a
// common lock: a data race the race detector found in
// TestGoRedisDedicatedPool.
func noMaintNotifications() *maintnotifications.Config {
	return &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
}

// reloadOnFailure has a cluster client read the cluster's slots again
// (at most every 200 ms: go-redis' LazyReload) after a command to one of
// its nodes failed other than by a reply, or met MOVED, ASK or CLUSTERDOWN.
// go-redis reloads by itself only on redirections and READONLY met by the
// cluster client's own commands, or a minute after the last reload: with
// a master killed, its clients kept sending to it, never met a node that
// redirects them, and did not follow the replica the cluster promoted
// (measured: not one command on the new master to the end of the cell);
// and a dedicated connection (Conn.Dedicated) is not redirected at all.
// It is a hook on every node's client (ClusterClient.OnNewNode), so the
// lock libraries that use the client directly (redsync, redislock) and
// the dedicated connections, which inherit their node's hooks, reload too.
type reloadOnFailure struct{ cluster *redis.ClusterClient }

var _ redis.Hook = reloadOnFailure{}

func (h reloadOnFailure) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h reloadOnFailure) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if isClusterSlots(cmd) { // go-redis reading the slot map from this node
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, slotsReadTimeout)
			defer cancel()
		}
		err := next(ctx, cmd)
		h.after(err)
		return notSentAgain(err)
	}
}

func (h reloadOnFailure) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.after(err)
		for _, c := range cmds {
			h.after(c.Err())
		}
		return notSentAgain(err)
	}
}

// slotsReadTimeout bounds go-redis' read of the slot map from one node.
// It reads from a node picked at random, and a paused master would keep
// it (and every reload after it) waiting its ReadTimeout, CommandTimeout;
// past this it tries the next node.
const slotsReadTimeout = 300 * time.Millisecond

// isClusterSlots reports whether cmd is CLUSTER SLOTS.
func isClusterSlots(cmd redis.Cmder) bool {
	args := cmd.Args()
	if len(args) != 2 || !strings.EqualFold(cmd.Name(), "cluster") {
		return false
	}
	sub, ok := args[1].(string)
	return ok && strings.EqualFold(sub, "slots")
}

// notSentAgain marks a timeout as one go-redis' cluster client does not
// send again. Its retry loop (up to MaxRedirects, 3, which also follows
// MOVED and ASK, as it should) sends a command that timed out to the same
// node once more: to a paused master, another CommandTimeout of waiting
// before the client looks at the slot map (measured: its clients reached
// the promoted replica 6-6.8 s after the pause, rueidis' 5-5.5 s). It
// sends nothing again after a context's end, so the timeout is also
// errors.Is context.DeadlineExceeded; its message and its kind (timeout)
// stay. MaxRetries -1 already keeps a node's client from sending again.
func notSentAgain(err error) error {
	var timeout interface{ Timeout() bool }
	if err != nil && errors.As(err, &timeout) && timeout.Timeout() {
		return commandTimeout{err}
	}
	return err
}

// commandTimeout is a command's timeout that is not sent again
// (notSentAgain).
type commandTimeout struct{ error }

func (e commandTimeout) Unwrap() error { return e.error }

// Is says the timeout is a context's end, for go-redis' retry loop alone.
func (e commandTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// after reloads when err says the node is gone, silent (a deadline
// passed) or no longer serves the slot; not when the caller gave up.
func (h reloadOnFailure) after(err error) {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, redis.TxFailedErr) || errors.Is(err, context.Canceled) {
		return
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		if !strings.HasPrefix(msg, "MOVED ") && !strings.HasPrefix(msg, "ASK ") && !strings.HasPrefix(msg, "CLUSTERDOWN") {
			return
		}
	}
	h.cluster.ReloadState(context.Background())
}

func args(cmd variants.Command) []any {
	a := make([]any, len(cmd.Argv))
	for i, s := range cmd.Argv {
		a[i] = boxed(s)
	}
	return a
}

func (g *goRedisConn) Do(ctx context.Context, cmd variants.Command) (any, error) {
	v, err := g.doer.Do(ctx, args(cmd)...).Result()
	if g.moved.follow(ctx, g, err) {
		v, err = g.doer.Do(ctx, args(cmd)...).Result()
	}
	return decodeGoRedis(v, err)
}

func isBare(cmd variants.Command, name string) bool {
	return len(cmd.Argv) == 1 && cmd.Argv[0] == name
}

// DoMulti sends a pipeline. A MULTI ... EXEC pipeline goes through
// go-redis' own transaction pipeline, which a cluster client routes to the
// keys' node, and its replies are given back as Redis sent them.
func (g *goRedisConn) DoMulti(ctx context.Context, cmds ...variants.Command) []variants.Result {
	n := len(cmds)
	if n >= 2 && isBare(cmds[0], "MULTI") && isBare(cmds[n-1], "EXEC") {
		return g.transaction(ctx, cmds[1:n-1])
	}
	send := func() []*redis.Cmd {
		pipe := g.doer.Pipeline()
		pending := make([]*redis.Cmd, n)
		for i, c := range cmds {
			pending[i] = pipe.Do(ctx, args(c)...)
		}
		_, _ = pipe.Exec(ctx) // each command keeps its own error
		return pending
	}
	pending := send()
	errs := make([]error, n)
	for i, p := range pending {
		errs[i] = p.Err()
	}
	if g.moved.follow(ctx, g, errs...) {
		pending = send()
	}
	out := make([]variants.Result, n)
	for i, p := range pending {
		out[i].Value, out[i].Err = decodeGoRedis(p.Result())
	}
	return out
}

// transaction runs inner in MULTI/EXEC and returns the replies of MULTI,
// each queued command, and EXEC (an array, nil when a WATCH aborted it).
func (g *goRedisConn) transaction(ctx context.Context, inner []variants.Command) []variants.Result {
	send := func() ([]*redis.Cmd, error) {
		pipe := g.doer.TxPipeline()
		pending := make([]*redis.Cmd, len(inner))
		for i, c := range inner {
			pending[i] = pipe.Do(ctx, args(c)...)
		}
		_, err := pipe.Exec(ctx)
		return pending, err
	}
	pending, err := send()
	if g.moved.follow(ctx, g, err) {
		pending, err = send()
	}
	out := make([]variants.Result, len(inner)+2)
	out[0].Value = "OK"
	for i := range inner {
		out[i+1].Value = "QUEUED"
	}
	exec := &out[len(out)-1]
	if errors.Is(err, redis.TxFailedErr) {
		return out // aborted: EXEC replied nil
	}
	replies := make([]any, len(pending))
	for i, p := range pending {
		v, err := decodeGoRedis(p.Result())
		var se *variants.ServerError
		switch {
		case errors.As(err, &se):
			replies[i] = se
		case err != nil:
			exec.Err = err // the connection failed, not a command
			return out
		default:
			replies[i] = v
		}
	}
	exec.Value = replies
	return out
}

// Dedicated runs fn on a connection of its own, from the dedicated pool
// (see newGoRedis): in a cluster, one to the master that serves key,
// which follows a MOVED reply to its first command (goRedisMoved).
func (g *goRedisConn) Dedicated(ctx context.Context, key string, fn func(variants.Conn) error) error {
	switch c := g.dedicating.(type) {
	case nil:
		return fn(g)
	case *redis.ClusterClient:
		node, err := c.MasterForKey(ctx, key)
		if err != nil {
			return err
		}
		conn := node.Conn()
		moved := &goRedisMoved{cluster: c, key: key, conns: []*redis.Conn{conn}}
		defer moved.close()
		return fn(&goRedisConn{doer: conn, moved: moved})
	case *redis.Client:
		conn := c.Conn()
		defer conn.Close()
		return fn(&goRedisConn{doer: conn})
	}
	return errors.New("clients: go-redis client without dedicated connections")
}

// GoRedis returns the client, for the variants that wrap a lock library
// (nil on a dedicated connection).
func (g *goRedisConn) GoRedis() redis.UniversalClient { return g.client }

func (g *goRedisConn) Close() {
	for _, s := range g.slots { // first: no refresh of a closed client
		s.close()
	}
	if g.client != nil {
		_ = g.client.Close()
	}
	if g.dedicating != g.client {
		_ = g.dedicating.Close()
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
