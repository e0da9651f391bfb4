package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// variant is the lock go-lua serves.
const variant = "lua-release"

// library is init_ok's library.
const library = "lockbench lua-release"

// modes are the modes of Redis go-lua serves.
var modes = []string{wire.ModeSingle, wire.ModeSentinel, wire.ModeCluster}

// backend is what init set up: the connection, each client's lock (one
// per client, as lockbench's own clients have), the leases held.
type backend struct {
	conn     clients.Client
	cfg      variants.Config
	prefix   string
	settings string

	mu     sync.Mutex
	locks  map[int]variants.Lock
	leases map[leaseKey]held
	seq    atomic.Uint64 // numbers the tokens
}

// leaseKey names a lease as the protocol does: a client's token.
type leaseKey struct {
	client int
	token  string
}

type held struct {
	key   string
	lease variants.Lease
}

// newBackend checks init's request and connects; an unsupported error
// for what go-lua cannot serve.
func newBackend(ctx context.Context, req *wire.Message) (*backend, error) {
	lock, redis := req.Lock, req.Redis
	switch {
	case req.Protocol != wire.Version:
		return nil, unsupported{fmt.Sprintf("protocol %d (go-lua speaks %d)", req.Protocol, wire.Version)}
	case lock.Renew:
		return nil, unsupported{"renewal: lua-release has none (watchdog is lockbench's renewing lock)"}
	case lock.Limit > 1:
		return nil, unsupported{fmt.Sprintf("a semaphore of %d permits: lua-release is a lock", lock.Limit)}
	case !(wire.Capabilities{Modes: modes}).Supports(redis.Mode):
		return nil, unsupported{fmt.Sprintf("mode %q (go-lua serves %s)", redis.Mode, strings.Join(modes, ", "))}
	case len(redis.Addrs) == 0:
		return nil, unsupported{"no address in redis.addrs"}
	}
	retry, err := driver.PolicyOf(lock.Retry)
	if err != nil {
		return nil, unsupported{err.Error()}
	}
	access, err := accessOf(redis)
	if err != nil {
		return nil, err
	}
	conn, err := clients.Dial(ctx, access, clients.Options{Library: "rueidis", Callers: req.Clients})
	if err != nil {
		return nil, err
	}
	cfg := variants.Config{
		Conn: conn, Prefix: req.Prefix, TTL: wire.FromMillis(lock.TTLMs), Retry: retry,
		AcquireTimeout: wire.FromMillis(lock.AcquireTimeoutMs),
	}
	b := &backend{conn: conn, cfg: cfg, prefix: req.Prefix, locks: map[int]variants.Lock{}, leases: map[leaseKey]held{}}
	b.settings = variants.Settings(variant, cfg)
	if _, err := b.lockOf(0); err != nil {
		conn.Close()
		return nil, err
	}
	return b, nil
}

// accessOf is init's redis as the topologies' access clients dial.
func accessOf(r *wire.Redis) (topologies.Access, error) {
	password, err := r.Password.Read()
	if err != nil {
		return topologies.Access{}, err
	}
	var tlsConfig *tls.Config
	if r.TLS != nil {
		if tlsConfig, err = tlsOf(r.TLS); err != nil {
			return topologies.Access{}, err
		}
	}
	access := topologies.Access{Mode: topologies.ModeSingle, MasterName: r.MasterName}
	if r.Mode == wire.ModeCluster {
		access.Mode = topologies.ModeCluster
	}
	for _, addr := range r.Addrs {
		access.Endpoints = append(access.Endpoints, topologies.Endpoint{Addr: addr, Username: r.Username, Password: password, TLS: tlsConfig})
	}
	return access, nil
}

func tlsOf(t *wire.TLS) (*tls.Config, error) {
	c := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls: no certificate in %s", t.CAFile)
		}
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// lockOf is client's lock, made at its first request.
func (b *backend) lockOf(client int) (variants.Lock, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.locks[client]; l != nil {
		return l, nil
	}
	l, err := variants.New(variant, b.cfg)
	if err != nil {
		return nil, err
	}
	b.locks[client] = l
	return l, nil
}

// ttl is the lease time the locks use.
func (b *backend) ttl() time.Duration { return variants.LeaseTTL(variant, b.cfg.TTL) }

// serve answers one request (acquire, release or extend).
func (b *backend) serve(ctx context.Context, req *wire.Message) wire.Message {
	client := *req.Client
	if !strings.HasPrefix(req.Key, b.prefix) {
		return wire.ErrorReply(req, true, wire.CodeMalformed, fmt.Sprintf("key %q is outside the prefix %q", req.Key, b.prefix))
	}
	switch req.Type {
	case wire.TypeAcquire:
		return b.acquire(ctx, req, client)
	case wire.TypeRelease:
		return b.release(ctx, req, client)
	}
	return b.extend(ctx, req, client)
}

func (b *backend) acquire(ctx context.Context, req *wire.Message, client int) wire.Message {
	lock, err := b.lockOf(client)
	if err != nil {
		return wire.ErrorReply(req, true, "", err.Error())
	}
	start := time.Now()
	lease, err := lock.Acquire(ctx, strings.TrimPrefix(req.Key, b.prefix))
	took := time.Since(start)
	switch {
	case err == nil:
		token := strconv.Itoa(client) + "." + strconv.FormatUint(b.seq.Add(1), 10)
		b.mu.Lock()
		b.leases[leaseKey{client, token}] = held{key: req.Key, lease: lease}
		b.mu.Unlock()
		ok := wire.ReplyTo(req, wire.TypeAcquireOK)
		ok.Token, ok.ValidityMs, ok.TookUs = token, wire.Millis(max(b.ttl()-took, 0)), wire.Micros(took)
		return ok
	case errors.Is(err, variants.ErrBusy), errors.Is(err, variants.ErrTimeout):
		no := wire.ReplyTo(req, wire.TypeNotAcquired)
		no.Reason, no.TookUs = wire.ReasonBusy, wire.Micros(took)
		if errors.Is(err, variants.ErrTimeout) {
			no.Reason = wire.ReasonTimeout
		}
		return no
	}
	return failed(req, err)
}

// take finds client's lease token of key; with remove, it is forgotten.
func (b *backend) take(client int, key, token string, remove bool) (variants.Lease, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.leases[leaseKey{client, token}]
	if !ok || h.key != key {
		return nil, false
	}
	if remove {
		delete(b.leases, leaseKey{client, token})
	}
	return h.lease, true
}

func (b *backend) release(ctx context.Context, req *wire.Message, client int) wire.Message {
	lease, ok := b.take(client, req.Key, req.Token, true)
	if !ok {
		return wire.ReplyTo(req, wire.TypeLeaseGone) // not this client's: nothing deleted
	}
	start := time.Now()
	err := lease.Release(ctx)
	took := time.Since(start)
	switch {
	case err == nil:
		done := wire.ReplyTo(req, wire.TypeReleaseOK)
		done.TookUs = wire.Micros(took)
		return done
	case errors.Is(err, variants.ErrLeaseLost):
		return wire.ReplyTo(req, wire.TypeLeaseGone)
	}
	return failed(req, err)
}

func (b *backend) extend(ctx context.Context, req *wire.Message, client int) wire.Message {
	ttl := wire.FromMillis(req.TTLMs)
	if ttl <= 0 {
		return wire.ErrorReply(req, true, wire.CodeMalformed, `extend without a positive "ttl_ms"`)
	}
	lease, ok := b.take(client, req.Key, req.Token, false)
	if !ok {
		return wire.ReplyTo(req, wire.TypeLeaseGone)
	}
	extender, ok := lease.(variants.Extender)
	if !ok {
		return wire.ErrorReply(req, true, wire.CodeUnsupported, "this lease cannot be extended")
	}
	start := time.Now()
	err := extender.Extend(ctx, ttl)
	took := time.Since(start)
	switch {
	case err == nil:
		ok := wire.ReplyTo(req, wire.TypeExtendOK)
		ok.ValidityMs = wire.Millis(max(ttl-took, 0))
		return ok
	case errors.Is(err, variants.ErrLeaseLost):
		_, _ = b.take(client, req.Key, req.Token, true)
		return wire.ReplyTo(req, wire.TypeLeaseGone)
	}
	return failed(req, err)
}

// failed is the error reply of a call to Redis that failed: definite when
// Redis answered with an error (the command did not run), indefinite
// otherwise (it may have).
func failed(req *wire.Message, err error) wire.Message {
	var server *variants.ServerError
	definite := errors.As(err, &server)
	code := wire.CodeIO
	if errors.Is(err, context.DeadlineExceeded) {
		code = wire.CodeTimeout
	}
	return wire.ErrorReply(req, definite, code, err.Error())
}

// version is rueidis' version and go-lua's own revision, as built.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := "lockbench " + info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v = "lockbench " + s.Value[:12]
		}
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/redis/rueidis" {
			v += ", rueidis " + dep.Version
		}
	}
	return v
}

func language() string { return "go " + strings.TrimPrefix(runtime.Version(), "go") }
