package topologies

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
)

// Errors of opening a topology. Compare them with errors.Is.
var (
	// ErrBadSpec: the topology name or target URL is malformed.
	ErrBadSpec = errors.New("bad topology")
	// ErrNoRedisServer: the local topology needs redis-server on PATH.
	ErrNoRedisServer = errors.New("redis-server not found on PATH")
	// ErrStart: a local node did not start.
	ErrStart = errors.New("redis-server did not start")
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

// Topology is a set of Redis nodes in use by one run.
type Topology interface {
	// Kind is the topology's name: local, embedded or target.
	Kind() string
	// Endpoints lists the nodes clients connect to.
	Endpoints() []Endpoint
	// Managed reports whether lockbench started these nodes itself (and so
	// may flush, pause or kill them).
	Managed() bool
	// Representative is false where the figures say nothing of a real Redis
	// server (the embedded miniredis).
	Representative() bool
	// Close stops what the topology started; it is a no-op for a target.
	Close() error
}

// Spec says which topology to open.
type Spec struct {
	// Kind is local, embedded or target. Default local, or embedded when
	// redis-server is not on PATH and Target is empty.
	Kind string `json:"kind"`
	// Target is the URL of an existing server, for Kind target.
	Target string `json:"target,omitempty"`
	// RedisServer is the redis-server binary of local. Default: from PATH.
	RedisServer string `json:"-"`
	// TLSInsecure skips certificate checks of a rediss:// target.
	TLSInsecure bool `json:"tls_insecure,omitempty"`
}

// Kinds lists the topologies Open accepts.
var Kinds = []string{"local", "embedded", "target"}

// Resolve fills the spec's defaults: a Target means target; no kind means
// local, or embedded when redis-server is missing. It reports whether it
// fell back to embedded.
func (s Spec) Resolve() (Spec, bool, error) {
	if s.Target != "" {
		if s.Kind != "" && s.Kind != "target" {
			return s, false, fmt.Errorf("%w: a target URL goes with no other topology (got %q)", ErrBadSpec, s.Kind)
		}
		s.Kind = "target"
		return s, false, nil
	}
	switch s.Kind {
	case "":
		if _, err := redisServerPath(s.RedisServer); err != nil {
			s.Kind = "embedded"
			return s, true, nil
		}
		s.Kind = "local"
	case "local", "embedded":
	case "target":
		return s, false, fmt.Errorf("%w: target needs a URL (--target redis://host:port)", ErrBadSpec)
	default:
		return s, false, fmt.Errorf("%w %q (known: %s)", ErrBadSpec, s.Kind, strings.Join(Kinds, ", "))
	}
	return s, false, nil
}

// Open starts or connects to the topology of spec (after Resolve).
func Open(ctx context.Context, spec Spec) (Topology, error) {
	spec, _, err := spec.Resolve()
	if err != nil {
		return nil, err
	}
	switch spec.Kind {
	case "local":
		return StartLocal(ctx, spec.RedisServer)
	case "embedded":
		return StartEmbedded()
	default:
		return OpenTarget(spec.Target, spec.TLSInsecure)
	}
}
