package topologies

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors of opening and controlling a topology. Compare them with errors.Is.
var (
	// ErrBadSpec: the topology name, a parameter or a target is malformed.
	ErrBadSpec = errors.New("bad topology")
	// ErrNoRedisServer: the local topologies need redis-server on PATH,
	// or the server binary Spec.RedisServer names (see ServerBinary).
	ErrNoRedisServer = errors.New("redis-server not found on PATH")
	// ErrStart: a local node did not start.
	ErrStart = errors.New("redis-server did not start")
	// ErrNotManaged: node control was asked of a node lockbench did not start.
	ErrNotManaged = errors.New("not a node lockbench started")
	// ErrNoNode: no node of that name in the topology.
	ErrNoNode = errors.New("no such node")
)

// Endpoint is how to reach one Redis node. Password and TLS never go into
// records or logs.
type Endpoint struct {
	Addr     string      `json:"addr"`
	Username string      `json:"username,omitempty"`
	Password string      `json:"-"`
	DB       int         `json:"db,omitempty"`
	TLS      *tls.Config `json:"-"`
}

// String is the endpoint as a URL without its password.
func (e Endpoint) String() string {
	scheme, user := "redis", ""
	if e.TLS != nil {
		scheme = "rediss"
	}
	if e.Username != "" {
		user = e.Username + "@"
	}
	s := fmt.Sprintf("%s://%s%s", scheme, user, e.Addr)
	if e.DB != 0 {
		s += fmt.Sprintf("/%d", e.DB)
	}
	return s
}

// Role is what a node does in its topology.
type Role string

// The roles of nodes.
const (
	RoleMaster   Role = "master"
	RoleReplica  Role = "replica"
	RoleSentinel Role = "sentinel"
)

// Node is one process of a topology.
type Node struct {
	// Name identifies the node for node control: master, replica-1,
	// sentinel-1, master-2, node-3.
	Name     string   `json:"name"`
	Role     Role     `json:"role"`
	Endpoint Endpoint `json:"endpoint"`
	// Announced is the address the node gives the other nodes and the
	// clients when its links go through proxies (Spec.Proxies): its
	// front's, which hands each connection to the proxy of its link.
	// Endpoint stays its own address. "" when it announces that.
	Announced string `json:"announced,omitempty"`
}

// At reports whether addr reaches n: its own address or the one it
// announces.
func (n Node) At(addr string) bool {
	return n.Endpoint.Addr == addr || n.Announced != "" && n.Announced == addr
}

// Mode says how clients reach the data.
type Mode string

// The modes.
const (
	// ModeSingle: one logical Redis, a node or a master with replicas
	// (found directly or through Sentinel).
	ModeSingle Mode = "single"
	// ModeCluster: a Redis Cluster; keys are spread over its masters.
	ModeCluster Mode = "cluster"
	// ModeIndependent: N masters that know nothing of each other, for
	// Redlock.
	ModeIndependent Mode = "independent"
)

// Access is what a client needs to connect.
type Access struct {
	Mode Mode `json:"mode"`
	// Endpoints are the node of a single topology, the seeds of a cluster,
	// the masters of independent ones, or the sentinels when MasterName is
	// set.
	Endpoints []Endpoint `json:"endpoints"`
	// MasterName is the name the sentinels monitor the master under.
	MasterName string `json:"master_name,omitempty"`
}

// RunFlags are the flags of lockbench run that reach the servers of a:
// --target URL... (a single server, independent masters), --cluster
// ADDRS, or --sentinel ADDRS --master-name NAME (topology up prints them).
func (a Access) RunFlags() string {
	var addrs, targets []string
	for _, ep := range a.Endpoints {
		addrs = append(addrs, ep.Addr)
		targets = append(targets, "--target "+ep.String())
	}
	switch {
	case a.MasterName != "":
		return fmt.Sprintf("--sentinel %s --master-name %s", strings.Join(addrs, ","), a.MasterName)
	case a.Mode == ModeCluster:
		return "--cluster " + strings.Join(addrs, ",")
	}
	return strings.Join(targets, " ")
}

// Topology is a set of Redis nodes in use by one run.
type Topology interface {
	// Name is the topology's canonical name, e.g. local:cluster?masters=3&replicas=0.
	Name() string
	// Access says how clients connect.
	Access() Access
	// Nodes lists every node with its role; for an external topology only
	// the ones given.
	Nodes() []Node
	// Managed reports whether lockbench started these nodes itself (and so
	// may pause, kill or restart them).
	Managed() bool
	// Representative is false where the figures say nothing of a real Redis
	// server (the embedded miniredis).
	Representative() bool
	// Close stops what the topology started; it is a no-op for external ones.
	Close() error
}

// Controller controls the nodes of a topology lockbench started, for
// faults. Every method fails with ErrNoNode for an unknown name.
type Controller interface {
	// Pause stops the node's process (SIGSTOP); it holds its connections
	// and answers nothing until Resume (SIGCONT).
	Pause(name string) error
	Resume(name string) error
	// Kill ends the node's process at once (SIGKILL); its data is lost.
	Kill(name string) error
	// Restart kills the node if it runs, waits delay, and starts it again on
	// the same port and configuration, without the data it had.
	Restart(ctx context.Context, name string, delay time.Duration) error
	// Promote makes a replica the master: REPLICAOF NO ONE on a replicated
	// topology, SENTINEL FAILOVER with Sentinel, CLUSTER FAILOVER in a
	// cluster.
	Promote(ctx context.Context, name string) error
	// ClockJump moves the node's wall clock by `by` (negative: back), as
	// its own process sees it, from where earlier jumps left it; it stays
	// moved, across restarts, until the topology is closed.
	ClockJump(ctx context.Context, name string, by time.Duration) error
	// FlushScripts empties the node's script cache (SCRIPT FLUSH).
	FlushScripts(ctx context.Context, name string) error
}

// Open starts or connects to the topology of spec.
func Open(ctx context.Context, spec Spec) (Topology, error) {
	spec, _, err := spec.Resolve()
	if err != nil {
		return nil, err
	}
	switch {
	case spec.Name == "embedded":
		return StartEmbedded()
	case spec.IsLocal():
		return StartLocal(ctx, spec)
	default:
		return OpenExternal(spec)
	}
}

// ControllerOf returns the node control of t, or ErrNotManaged when
// lockbench did not start its nodes: faults never touch servers that are
// not lockbench's own.
func ControllerOf(t Topology) (Controller, error) {
	c, ok := t.(Controller)
	if !ok || !t.Managed() {
		return nil, fmt.Errorf("%w: %s", ErrNotManaged, t.Name())
	}
	return c, nil
}
