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
	doer   rueidisDoer
	client rueidis.Client // nil on a dedicated connection
	// dedicating hands out the dedicated connections: client itself, or,
	// when client's ring was sized to many callers, a client of its own
	// built from option (see newRueidis).
	dedicating rueidis.Client
	option     rueidis.ClientOption // client's, but for the ring: rueidis' default
	dedicated  bool
	moved      *movedRedirect // a dedicated connection in a cluster: follows MOVED once
	others     *nodeClients   // a cluster client's: nodes it does not list, for movedRedirect
}

var (
	_ Client                 = (*rueidisConn)(nil)
	_ variants.RueidisNative = (*rueidisConn)(nil)
)

// maxRingScale bounds the ring ringScale gives: 2^16 slots, about 22 MB
// a connection (344 bytes a slot, measured).
const maxRingScale = 16

// ringScale is the RingScaleEachConn (a ring of 2^scale slots) of a client
// that callers goroutines send through at once: a ring that holds a
// command of each, so that none waits for a slot, and never smaller than
// rueidis' default of 1024. A caller that finds a connection's ring full
// waits on that slot, and the connection's writer waits in slot order
// for each such caller to be scheduled again. At 10,000 clients
// (lua-release, 1,000 keys, 10 s) on rueidis' 2 connections of 1,024
// slots releases waited past their 2 s timeout, 0-234 a run; with rings
// of 16,384 (2^14) none did in 6 runs, and Redis ran a median 754,000
// commands against 587,000 (at load 4.7, 1,250,000 against 578,000, with
// lockbench using 1.7 cores against 1).
func ringScale(callers int) int {
	scale := rueidis.DefaultRingScale
	for scale < maxRingScale && 1<<scale < callers {
		scale++
	}
	return scale
}

// newRueidis builds the client of opts. When opts.Callers calls for a
// ring larger than rueidis' default, the dedicated connections come from
// a second client with the default ring: rueidis gives every connection,
// a dedicated one too, the ring of its client's options, and a dedicated
// connection carries one caller's commands (a 2^14 ring is about 5.6 MB).
func newRueidis(access topologies.Access, opts Options) (*rueidisConn, error) {
	dial := opts.Dial
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
	pipelined := opt
	if scale := ringScale(opts.Callers); scale > rueidis.DefaultRingScale {
		pipelined.RingScaleEachConn = scale
	}
	c, err := rueidis.NewClient(pipelined)
	if err != nil {
		return nil, err
	}
	r := &rueidisConn{doer: c, client: c, dedicating: c, option: opt}
	if pipelined.RingScaleEachConn != opt.RingScaleEachConn {
		if r.dedicating, err = rueidis.NewClient(opt); err != nil {
			c.Close()
			return nil, err
		}
	}
	if access.Mode == topologies.ModeCluster {
		r.others = &nodeClients{option: opt}
	}
	return r, nil
}

// Rueidis returns the client and its options, for the variants that
// wrap a lock library (nil on a dedicated connection). The options are
// those the client was built from but for its ring, which is rueidis'
// default: a library that builds a client of its own per caller
// (rueidislock) wants no ring sized to every caller of this one.
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

// Dedicated runs fn on a connection of its own, with rueidis' default
// ring (see newRueidis); in a cluster rueidis picks the node by the first
// command's key, which is key's, and the connection follows a MOVED reply
// to its first command (movedRedirect).
func (r *rueidisConn) Dedicated(ctx context.Context, key string, fn func(variants.Conn) error) error {
	if r.dedicated {
		return fn(r)
	}
	return r.dedicating.Dedicated(func(d rueidis.DedicatedClient) error {
		conn := &rueidisConn{doer: d, dedicated: true}
		if r.others != nil {
			conn.moved = &movedRedirect{cluster: r.dedicating, others: r.others}
			defer conn.moved.release()
		}
		return fn(conn)
	})
}

func (r *rueidisConn) Close() {
	if r.client != nil {
		r.client.Close()
	}
	if r.dedicating != r.client {
		r.dedicating.Close()
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
