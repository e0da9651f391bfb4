package topologies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/lockbench/lockbench/redisinfo"
)

// adminTimeout bounds one admin command, so that a paused node cannot hang
// the topology code.
const adminTimeout = 2 * time.Second

// NodeConn is a connection to one node for the commands that ask it what
// it is or change its place in the topology (INFO, ROLE, CLUSTER,
// SENTINEL, REPLICAOF): a single RESP2 rueidis connection without
// client-side caching, retries or cluster routing. Each command is bounded
// by 2 s, so that a paused node cannot hang its caller. It never carries
// lock traffic.
type NodeConn struct {
	addr string
	c    rueidis.Client
}

// dialAdmin connects to the node at addr.
func dialAdmin(addr string) (*NodeConn, error) {
	return DialNode(context.Background(), Endpoint{Addr: addr})
}

// DialNode connects to the node at ep, with its user, password and TLS,
// within ctx's deadline and at most 2 s.
func DialNode(ctx context.Context, ep Endpoint) (*NodeConn, error) {
	addr := ep.Addr
	dialTimeout := adminTimeout
	if deadline, ok := ctx.Deadline(); ok {
		dialTimeout = min(dialTimeout, time.Until(deadline))
	}
	if err := ctx.Err(); err != nil || dialTimeout <= 0 {
		return nil, fmt.Errorf("connect to %s: %w", addr, cmp.Or(err, context.DeadlineExceeded))
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{addr},
		Username:          ep.Username,
		Password:          ep.Password,
		TLSConfig:         ep.TLS,
		ForceSingleClient: true,
		DisableCache:      true,
		DisableRetry:      true,
		AlwaysRESP2:       true, // plain text replies, not RESP3's "txt:" verbatim strings
		ClientSetInfo:     rueidis.DisableClientSetInfo,
		ConnWriteTimeout:  adminTimeout,
		Dialer:            net.Dialer{Timeout: dialTimeout},
	})
	if err != nil {
		if c != nil {
			c.Close()
		}
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return &NodeConn{addr: addr, c: c}, nil
}

// Addr is the address of the node.
func (a *NodeConn) Addr() string { return a.addr }

// Close closes the connection.
func (a *NodeConn) Close() { a.c.Close() }

// Info sends INFO with the sections given (all of the default ones when
// none) and returns the reply parsed. Before Redis 7, which takes one
// section, a request of several is sent again as INFO all.
func (a *NodeConn) Info(ctx context.Context, sections ...string) (redisinfo.Info, error) {
	args := append([]string{"INFO"}, sections...)
	text, err := a.text(ctx, args...)
	var redisErr *rueidis.RedisError
	if errors.As(err, &redisErr) && len(sections) > 1 {
		text, err = a.text(ctx, "INFO", "all")
	}
	if err != nil {
		return nil, err
	}
	info, err := redisinfo.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("INFO on %s: %w", a.addr, err)
	}
	return info, nil
}

// do sends one command.
func (a *NodeConn) do(ctx context.Context, args ...string) rueidis.RedisResult {
	ctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	return a.c.Do(ctx, a.c.B().Arbitrary(args...).Build())
}

// exec sends one command whose reply is only checked for an error.
func (a *NodeConn) exec(ctx context.Context, args ...string) error {
	if err := a.do(ctx, args...).Error(); err != nil {
		return fmt.Errorf("%s on %s: %w", strings.Join(args, " "), a.addr, err)
	}
	return nil
}

// text sends one command with a text reply (INFO, CLUSTER INFO, CLUSTER
// NODES, CLUSTER MYID).
func (a *NodeConn) text(ctx context.Context, args ...string) (string, error) {
	s, err := a.do(ctx, args...).ToString()
	if err != nil {
		return "", fmt.Errorf("%s on %s: %w", strings.Join(args, " "), a.addr, err)
	}
	return s, nil
}

// role is the first element of ROLE's reply (master, slave, sentinel) and,
// for a replica, its master's address.
func (a *NodeConn) role(ctx context.Context) (role, masterAddr string, err error) {
	reply, err := a.do(ctx, "ROLE").ToArray()
	if err == nil && len(reply) == 0 {
		err = errors.New("empty reply")
	}
	if err != nil {
		return "", "", fmt.Errorf("ROLE on %s: %w", a.addr, err)
	}
	role, err = reply[0].ToString()
	if err != nil {
		return "", "", fmt.Errorf("ROLE on %s: %w", a.addr, err)
	}
	if role == "slave" && len(reply) >= 3 {
		host, _ := reply[1].ToString()
		port, _ := reply[2].AsInt64()
		masterAddr = net.JoinHostPort(host, fmt.Sprint(port))
	}
	return role, masterAddr, nil
}

// waitRole waits until ROLE on a says role (master, slave).
func (a *NodeConn) waitRole(ctx context.Context, timeout time.Duration, role string) error {
	return waitFor(ctx, timeout, a.addr+" to report ROLE "+role, func(ctx context.Context) error {
		got, _, err := a.role(ctx)
		if err != nil {
			return err
		}
		if got != role {
			return fmt.Errorf("ROLE %s", got)
		}
		return nil
	})
}

// sentinelMaster is what the sentinel at a says is the address of the
// master it monitors under name.
func (a *NodeConn) sentinelMaster(ctx context.Context, name string) (string, error) {
	addr, err := a.do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).AsStrSlice()
	if err == nil && len(addr) != 2 {
		err = fmt.Errorf("reply %q is not host, port", addr)
	}
	if err != nil {
		return "", fmt.Errorf("SENTINEL GET-MASTER-ADDR-BY-NAME %s on %s: %w", name, a.addr, err)
	}
	return net.JoinHostPort(addr[0], addr[1]), nil
}

// sentinelList is SENTINEL REPLICAS or SENTINEL SENTINELS: one field map
// per instance.
func (a *NodeConn) sentinelList(ctx context.Context, what, name string) ([]map[string]string, error) {
	items, err := a.do(ctx, "SENTINEL", what, name).ToArray()
	if err != nil {
		return nil, fmt.Errorf("SENTINEL %s on %s: %w", what, a.addr, err)
	}
	list := make([]map[string]string, len(items))
	for i := range items {
		if list[i], err = items[i].AsStrMap(); err != nil {
			return nil, fmt.Errorf("SENTINEL %s on %s: %w", what, a.addr, err)
		}
	}
	return list, nil
}

// waitFor calls check every 50 ms until it returns nil, ctx ends, or
// timeout passes; the error says what was awaited and what was last
// missing.
func waitFor(ctx context.Context, timeout time.Duration, what string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error // the last check's error that the deadline did not cut short
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if last == nil || ctx.Err() == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %w)", what, ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dialAll connects to every address; on failure it closes those opened.
func dialAll(addrs []string) ([]*NodeConn, error) {
	conns := make([]*NodeConn, 0, len(addrs))
	for _, addr := range addrs {
		a, err := dialAdmin(addr)
		if err != nil {
			closeAll(conns)
			return nil, err
		}
		conns = append(conns, a)
	}
	return conns, nil
}

func closeAll(conns []*NodeConn) {
	for _, a := range conns {
		a.Close()
	}
}
