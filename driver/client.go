package driver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/variants"
)

// Client is one of lockbench's clients on a driver process: its requests
// go one at a time (the protocol's rule; a second one while the first is
// unanswered fails with ErrClientBusy). Clients of one process run
// concurrently.
type Client struct {
	p  *Process
	id int
}

// Client is the client numbered id (>= 0) on the process.
func (p *Process) Client(id int) *Client { return &Client{p: p, id: id} }

// ID is the client's number.
func (c *Client) ID() int { return c.id }

// Acquire asks for the lock key (which starts with the prefix): a lease;
// a *NotAcquiredError, variants.ErrBusy or variants.ErrTimeout; the
// driver's *ReplyError (ErrDefinite or ErrIndefinite); ErrNoReply
// (indefinite) after the deadline; or the process's failure.
func (c *Client) Acquire(ctx context.Context, key string) (*Lease, error) {
	m, lease, err := c.p.request(ctx, "acquire", c.id, wire.Message{Type: wire.TypeAcquire, Key: key}, c.p.deadline())
	if err != nil {
		return nil, err
	}
	switch m.Type {
	case wire.TypeAcquireOK:
		return lease, nil
	case wire.TypeNotAcquired:
		return nil, &NotAcquiredError{Reason: m.Reason, Took: wire.FromMicros(m.TookUs)}
	}
	return nil, c.replyError("acquire", m)
}

// Release gives up the lease token of key. It returns the time the
// library's call took (0 when the driver did not say), and
// variants.ErrLeaseLost when the driver says the lease was no longer held
// (lease_gone), or an error as Acquire's.
func (c *Client) Release(ctx context.Context, key, token string) (took time.Duration, err error) {
	msg := wire.Message{Type: wire.TypeRelease, Key: key, Token: token, Interrupt: c.p.cfg.InterruptRelease}
	m, _, err := c.p.request(ctx, "release", c.id, msg, c.p.deadline())
	if err != nil {
		return 0, err
	}
	switch m.Type {
	case wire.TypeReleaseOK:
		return wire.FromMicros(m.TookUs), nil
	case wire.TypeLeaseGone:
		return 0, variants.ErrLeaseLost
	}
	return 0, c.replyError("release", m)
}

// Extend sets the lease's time left to ttl; it returns the validity the
// driver reports (0 when it did not), variants.ErrLeaseLost for a lease no
// longer held, an error wrapping ErrUnsupported from a driver without
// extend, or an error as Acquire's.
func (c *Client) Extend(ctx context.Context, key, token string, ttl time.Duration) (validity time.Duration, err error) {
	msg := wire.Message{Type: wire.TypeExtend, Key: key, Token: token, TTLMs: wire.Millis(ttl)}
	m, _, err := c.p.request(ctx, "extend", c.id, msg, c.p.deadline())
	if err != nil {
		return 0, err
	}
	switch m.Type {
	case wire.TypeExtendOK:
		return wire.FromMillis(m.ValidityMs), nil
	case wire.TypeLeaseGone:
		return 0, variants.ErrLeaseLost
	}
	return 0, c.replyError("extend", m)
}

// ClockOffset asks the driver for its wall clock, as its runtime reads it
// (the clock request), and returns how far that reads from lockbench's:
// the time it answered less the midpoint of the request's round trip,
// which is within half that round trip of the truth. A driver that does
// not know the request answers an error: a *ReplyError.
func (c *Client) ClockOffset(ctx context.Context) (time.Duration, error) {
	before := time.Now()
	m, _, err := c.p.request(ctx, "clock", c.id, wire.Message{Type: wire.TypeClock}, c.p.deadline())
	if err != nil {
		return 0, err
	}
	if m.Type != wire.TypeClockOK {
		return 0, c.replyError("clock", m)
	}
	mid := before.Add(time.Since(before) / 2)
	return time.UnixMicro(int64(m.NowMs * 1000)).Sub(mid), nil
}

// Send sends msg as the client's request as it is (its id and client
// filled in), and returns the driver's reply of any type, an error reply
// too: the conformance suite's malformed requests. It fails as Acquire
// does when no reply comes.
func (c *Client) Send(ctx context.Context, msg wire.Message) (wire.Message, error) {
	m, _, err := c.p.request(ctx, "raw", c.id, msg, c.p.deadline())
	if err != nil {
		return wire.Message{}, err
	}
	return m.Message, nil
}

func (c *Client) replyError(op string, m *received) error {
	return &ReplyError{Op: op, Client: c.id, Definite: *m.Definite, Code: m.Code, Text: m.Text}
}

// Lease is a lock a client holds through a driver, as acquire_ok told it.
type Lease struct {
	Client int
	Key    string
	Token  string
	// Fence is the lease's fencing token, 0 when the driver has none.
	Fence uint64
	// Validity is the time the lease had left when acquired, as the
	// library reported it; 0 when the driver did not say.
	Validity time.Duration
	// Took is the library's call's own duration, 0 when the driver did not
	// say; the rest of the acquire's time is the protocol's.
	Took time.Duration
	// Received is when lockbench read the acquire_ok.
	Received time.Time

	p         *Process
	lostOnce  sync.Once
	lost      chan struct{}
	lostText  atomic.Pointer[string]
	renewedAt atomic.Int64 // unix nanoseconds, 0: never
}

// leaseKey finds a lease among a process's: a client's token.
type leaseKey struct {
	client int
	token  string
}

func (l *Lease) key() leaseKey { return leaseKey{l.Client, l.Token} }

// newLease makes and keeps the lease of an acquire_ok; p.mu is held.
func (p *Process) newLease(req *request, m *received) *Lease {
	l := &Lease{
		Client: req.client, Key: req.key, Token: m.Token, Fence: m.Fence,
		Validity: wire.FromMillis(m.ValidityMs), Took: wire.FromMicros(m.TookUs), Received: m.at,
		p: p, lost: make(chan struct{}),
	}
	p.leases[l.key()] = l
	return l
}

// Release releases the lease (Client.Release).
func (l *Lease) Release(ctx context.Context) (took time.Duration, err error) {
	return l.p.Client(l.Client).Release(ctx, l.Key, l.Token)
}

// Lost is closed when the driver says the lease is gone (lease_lost: its
// library's automatic renewal failed).
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// LostText is what the driver's lease_lost said, "" before.
func (l *Lease) LostText() string {
	if t := l.lostText.Load(); t != nil {
		return *t
	}
	return ""
}

// RenewedAt is when the driver last said the lease was renewed (renewed),
// zero when it never did.
func (l *Lease) RenewedAt() time.Time {
	if ns := l.renewedAt.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

func (l *Lease) notice(n Notice) {
	switch n.Type {
	case wire.TypeLeaseLost:
		l.lostOnce.Do(func() {
			l.lostText.Store(&n.Text)
			close(l.lost)
		})
	case wire.TypeRenewed:
		l.renewedAt.Store(n.At.UnixNano())
	}
}

// Notice is a message a driver sent unasked.
type Notice struct {
	Type     string // lease_lost or renewed
	Client   int
	Token    string
	Text     string        // lease_lost's
	Validity time.Duration // renewed's, 0 when not said
	At       time.Time     // when lockbench read it
}
