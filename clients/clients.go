package clients

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// Names lists the client libraries, the default first.
var Names = []string{"rueidis", "go-redis"}

// Errors of connecting. Compare them with errors.Is.
var (
	// ErrUnknown: no adapter of that name.
	ErrUnknown = errors.New("unknown client")
	// ErrUnreachable: the server did not answer PING in time.
	ErrUnreachable = errors.New("redis unreachable")
)

// ConnectTimeout bounds dialing and the first PING.
const ConnectTimeout = 3 * time.Second

// CommandTimeout bounds the wait for a reply on a connection (rueidis'
// ConnWriteTimeout, go-redis' read and write timeouts): a master that
// stops answering without closing its connections (paused, cut off) fails
// its clients' commands after it, so that they reach the replica promoted
// in its place, as a client configured for failover does. The libraries'
// defaults (10 s, 5 s) held every client on a paused cluster master to
// the end of the cell.
const CommandTimeout = 3 * time.Second

// ShardsRefreshInterval is how often a cluster client reads the cluster's
// shards although nothing redirected it, so that it finds the replica
// promoted in place of a master that went silent.
const ShardsRefreshInterval = time.Second

// Options configures a client.
type Options struct {
	// Library is rueidis or go-redis. Default rueidis.
	Library string
	// PoolSize is the connections go-redis may open per node (one per
	// concurrent command). Past maxSharedPool (256) they are split: the
	// ordinary commands share 256, and the dedicated connections
	// (Dedicated) come from a pool of their own of the rest (see
	// newGoRedis). Default 10 per CPU, go-redis' own default. rueidis
	// pipelines every caller over a few connections per node and ignores
	// it.
	PoolSize int
	// Callers is how many goroutines may send through the client at once
	// (a run's clients). rueidis sizes the ring of commands of each of its
	// pipelining connections to hold one of each (RingScaleEachConn, up
	// to 2^16), and past its default ring of 1024 hands out the dedicated
	// connections from a second client with the default ring (see
	// newRueidis). go-redis ignores it (see PoolSize). Default 0:
	// rueidis' default ring, one client.
	Callers int
	// Dial, when set, opens every connection, to sentinels too, in place
	// of the library's own dialer (topologies.Dialer: through the proxies
	// of a topology's links). It does no TLS. Default nil: the library's.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Client is a connection to one Redis node, a Sentinel-monitored master, or
// a cluster.
type Client interface {
	variants.Conn
	Close()
}

// Check returns an error naming the known libraries when name is unknown.
func Check(name string) error {
	for _, n := range Names {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names, ", "))
}

// New connects to one node at ep.
func New(ctx context.Context, ep topologies.Endpoint, opts Options) (Client, error) {
	return Dial(ctx, topologies.Access{Mode: topologies.ModeSingle, Endpoints: []topologies.Endpoint{ep}}, opts)
}

// Connect returns the clients of a topology: one for a single node, a
// Sentinel-monitored master or a cluster; one per master for independent
// masters.
func Connect(ctx context.Context, access topologies.Access, opts Options) ([]Client, error) {
	if access.Mode != topologies.ModeIndependent {
		c, err := Dial(ctx, access, opts)
		if err != nil {
			return nil, err
		}
		return []Client{c}, nil
	}
	var all []Client
	for _, ep := range access.Endpoints {
		c, err := New(ctx, ep, opts)
		if err != nil {
			for _, c := range all {
				c.Close()
			}
			return nil, err
		}
		all = append(all, c)
	}
	return all, nil
}

// Dial connects with the library of opts to what access describes (not
// independent masters: see Connect) and checks with PING, within
// ConnectTimeout, that it answers.
func Dial(ctx context.Context, access topologies.Access, opts Options) (Client, error) {
	if opts.Library == "" {
		opts.Library = Names[0]
	}
	if err := Check(opts.Library); err != nil {
		return nil, err
	}
	if len(access.Endpoints) == 0 {
		return nil, fmt.Errorf("%w: no address", ErrUnreachable)
	}
	var (
		c   Client
		err error
	)
	switch opts.Library {
	case "rueidis":
		c, err = newRueidis(access, opts)
	default:
		c = newGoRedis(access, opts.PoolSize, opts.Dial)
	}
	where := describe(access)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, where, err)
	}
	pctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	if _, err := c.Do(pctx, variants.Bare("PING")); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, where, err)
	}
	return c, nil
}

// describe names what access points at, without passwords.
func describe(a topologies.Access) string {
	var addrs []string
	for _, ep := range a.Endpoints {
		addrs = append(addrs, ep.String())
	}
	s := strings.Join(addrs, ",")
	switch {
	case a.MasterName != "":
		return fmt.Sprintf("master %q via sentinels %s", a.MasterName, s)
	case a.Mode == topologies.ModeCluster:
		return "cluster " + s
	}
	return s
}
