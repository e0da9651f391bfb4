package clients

import (
	"context"
	"crypto/tls"
	"net"

	"github.com/redis/rueidis"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// rueidisDoer is what rueidis.Client and rueidis.DedicatedClient share.
type rueidisDoer interface {
	B() rueidis.Builder
	Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult
	DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult
}

type rueidisConn struct {
	doer      rueidisDoer
	client    rueidis.Client       // nil on a dedicated connection
	option    rueidis.ClientOption // what client was built from
	dedicated bool
	moved     *movedRedirect // a dedicated connection in a cluster: follows MOVED once
	others    *nodeClients   // a cluster client's: nodes it does not list, for movedRedirect
}

var (
	_ Client                 = (*rueidisConn)(nil)
	_ variants.RueidisNative = (*rueidisConn)(nil)
)

func newRueidis(access topologies.Access, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*rueidisConn, error) {
	ep := access.Endpoints[0]
	opt := rueidis.ClientOption{
		Username:     ep.Username,
		Password:     ep.Password,
		SelectDB:     ep.DB,
		TLSConfig:    ep.TLS,
		Dialer:       net.Dialer{Timeout: ConnectTimeout},
		DisableCache: true, // no client-side caching: every acquire goes to Redis
		DisableRetry: true, // errors are counted, not hidden
		// A connection whose replies (and background PINGs) wait longer
		// is closed, failing its commands: a silent master's clients move on.
		ConnWriteTimeout: CommandTimeout,
	}
	for _, e := range access.Endpoints {
		opt.InitAddress = append(opt.InitAddress, e.Addr)
	}
	if dial != nil {
		opt.DialCtxFn = func(ctx context.Context, addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
			return dial(ctx, "tcp", addr)
		}
	}
	switch {
	case access.MasterName != "":
		opt.Sentinel = rueidis.SentinelOption{MasterSet: access.MasterName, Username: ep.Username, Password: ep.Password, TLSConfig: ep.TLS}
	case access.Mode != topologies.ModeCluster:
		opt.ForceSingleClient = true
	default:
		// A master that stops answering without closing its connections
		// (paused, cut off) sends no MOVED and no error but timeouts:
		// only a periodic look at the shards finds its promoted replica.
		opt.ClusterOption.ShardsRefreshInterval = ShardsRefreshInterval
	}
	c, err := rueidis.NewClient(opt)
	if err != nil {
		return nil, err
	}
	r := &rueidisConn{doer: c, client: c, option: opt}
	if access.Mode == topologies.ModeCluster {
		r.others = &nodeClients{option: opt}
	}
	return r, nil
}

// Rueidis returns the client and its options, for the variants that
// wrap a lock library (nil on a dedicated connection).
func (r *rueidisConn) Rueidis() (rueidis.Client, rueidis.ClientOption) { return r.client, r.option }

func (r *rueidisConn) build(cmd variants.Command) rueidis.Completed {
	b := r.doer.B()
	if len(cmd.Argv) == 1 { // MULTI and EXEC mark a transaction for the cluster client
		switch cmd.Argv[0] {
		case "MULTI":
			return b.Multi().Build()
		case "EXEC":
			return b.Exec().Build()
		}
	}
	a := b.Arbitrary(cmd.Argv[0])
	next := 1
	for _, k := range cmd.Keys {
		a = a.Args(cmd.Argv[next:k]...).Keys(cmd.Argv[k])
		next = k + 1
	}
	return a.Args(cmd.Argv[next:]...).Build()
}

func (r *rueidisConn) Do(ctx context.Context, cmd variants.Command) (any, error) {
	res := r.doer.Do(ctx, r.build(cmd))
	if r.moved.follow(r, res) {
		res = r.doer.Do(ctx, r.build(cmd))
	}
	return decodeRueidis(res)
}

func (r *rueidisConn) DoMulti(ctx context.Context, cmds ...variants.Command) []variants.Result {
	send := func() []rueidis.RedisResult {
		built := make([]rueidis.Completed, len(cmds))
		for i, c := range cmds {
			built[i] = r.build(c)
		}
		return r.doer.DoMulti(ctx, built...)
	}
	results := send()
	if r.moved.follow(r, results...) {
		results = send()
	}
	out := make([]variants.Result, len(cmds))
	for i, res := range results {
		out[i].Value, out[i].Err = decodeRueidis(res)
	}
	return out
}

// Dedicated runs fn on a connection of its own; in a cluster rueidis picks
// the node by the first command's key, which is key's, and the connection
// follows a MOVED reply to its first command (movedRedirect).
func (r *rueidisConn) Dedicated(ctx context.Context, key string, fn func(variants.Conn) error) error {
	if r.dedicated {
		return fn(r)
	}
	return r.client.Dedicated(func(d rueidis.DedicatedClient) error {
		conn := &rueidisConn{doer: d, dedicated: true}
		if r.others != nil {
			conn.moved = &movedRedirect{cluster: r.client, others: r.others}
			defer conn.moved.release()
		}
		return fn(conn)
	})
}

func (r *rueidisConn) Close() {
	if r.client != nil {
		r.client.Close()
	}
	r.others.close()
}

func decodeRueidis(res rueidis.RedisResult) (any, error) {
	if msg, err := res.ToMessage(); err == nil && msg.IsString() {
		s, _ := msg.ToString()
		if v, ok := status(s); ok {
			return v, nil
		}
	}
	v, err := res.ToAny()
	if err == nil {
		return rueidisArray(v), nil
	}
	if rueidis.IsRedisNil(err) {
		return nil, nil
	}
	if re, ok := rueidis.IsRedisErr(err); ok {
		return nil, &variants.ServerError{Msg: re.Error()}
	}
	return nil, err
}

// rueidisArray turns the error replies inside an array (an EXEC's, say)
// into *variants.ServerError, as at top level.
func rueidisArray(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	for i, e := range a {
		if err, ok := e.(error); ok {
			if re, ok := rueidis.IsRedisErr(err); ok {
				a[i] = &variants.ServerError{Msg: re.Error()}
			}
		} else {
			a[i] = rueidisArray(e)
		}
	}
	return a
}
