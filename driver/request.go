package driver

import (
	"context"
	"fmt"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
)

// request is one request in flight.
type request struct {
	id     int64
	op     string // init, acquire, release, extend, raw
	client int    // -1 for init
	key    string
	token  string      // of a release or extend
	done   chan result // the reply, the process's failure, or the deadline's error; buffered
	// abandoned: lockbench stopped waiting (deadline, context); the reply,
	// when it comes, is dropped, and a late acquire_ok released.
	abandoned bool
	// answered: a result was put in done, or its requester stopped
	// waiting: nothing more goes in done.
	answered bool
	timeout  time.Duration // how long it may wait for its reply
	deadline time.Time     // when it stops waiting: the sweeper fails it
}

// result is what a request ends with.
type result struct {
	msg   *received
	lease *Lease // of an acquire_ok
	err   error
}

// received is a message from the driver with its line.
type received struct {
	wire.Message
	line string
	at   time.Time
}

// indefinite is an error of a request whose reply lockbench stopped
// waiting for: the operation may have taken effect.
type indefinite struct {
	msg  string
	errs []error
}

func (e indefinite) Error() string   { return e.msg }
func (e indefinite) Unwrap() []error { return append(e.errs, ErrIndefinite) }

// definite is an error of a request that was never sent.
type definite struct {
	msg  string
	errs []error
}

func (e definite) Error() string   { return e.msg }
func (e definite) Unwrap() []error { return append(e.errs, ErrDefinite) }

// deadline is how long a request of a client may wait for its reply.
func (p *Process) deadline() time.Duration { return p.cfg.AcquireTimeout + p.cfg.Margin }

// request sends msg as a request of client (-1: none) and waits up to
// timeout, or until ctx ends, for its reply.
func (p *Process) request(ctx context.Context, op string, client int, msg wire.Message, timeout time.Duration) (*received, *Lease, error) {
	req, err := p.register(op, client, msg, false, timeout)
	if err != nil {
		return nil, nil, err
	}
	msg.ID = wire.Int64(req.id)
	if client >= 0 {
		msg.Client = wire.Int(client)
	}
	if err := p.write(msg); err != nil {
		p.fail(err)
		r := <-req.done
		return nil, nil, r.err
	}
	// No timer of its own: sweep fails it at its deadline, through done.
	select {
	case r := <-req.done:
		return r.msg, r.lease, r.err
	case <-ctx.Done():
		err = indefinite{fmt.Sprintf("driver %s: %s of client %d: %v before its reply", p.m.Name, op, client, ctx.Err()), []error{ctx.Err()}}
	}
	if r, answered := p.abandon(req); answered {
		return r.msg, r.lease, r.err
	}
	return nil, nil, err
}

// noReply is the error of a request that reached its deadline.
func (p *Process) noReply(req *request) error {
	if req.op == "init" {
		return indefinite{fmt.Sprintf("no init_ok within %v", req.timeout), []error{ErrNoReply}}
	}
	return indefinite{fmt.Sprintf("driver %s: %s of client %d: no reply within %v (the acquire timeout %v plus a margin of %v)",
		p.m.Name, req.op, req.client, req.timeout, p.cfg.AcquireTimeout, p.cfg.Margin), []error{ErrNoReply}}
}

// sweepEvery is how often sweep looks for requests past their deadline:
// a request fails up to this much after it.
const sweepEvery = 20 * time.Millisecond

// sweep fails each request that is still waiting at its deadline with
// ErrNoReply (indefinite) and abandons it, until sweepStop closes. One
// goroutine checking the earliest deadline costs less than a timer per
// request, set and stopped each time; it looks at the requests only once
// the earliest deadline it knew of has passed.
func (p *Process) sweep() {
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-p.sweepStop:
			return
		}
		now := time.Now()
		p.mu.Lock()
		if now.Before(p.nextSweep) {
			p.mu.Unlock()
			continue
		}
		next := now.Add(time.Hour)
		for _, req := range p.pending {
			switch {
			case req.answered:
			case !now.Before(req.deadline):
				req.abandoned = true
				p.deliver(req, result{err: p.noReply(req)})
			case req.deadline.Before(next):
				next = req.deadline
			}
		}
		p.nextSweep = next
		p.mu.Unlock()
	}
}

// deliver puts r in req's done, unless req has its result already or its
// requester stopped waiting; p.mu is held.
func (p *Process) deliver(req *request, r result) {
	if !req.answered {
		req.answered = true
		req.done <- r
	}
}

// register numbers a request of client and puts it in flight, unless the
// process failed or the client has a request in flight. Its reply is
// awaited for timeout (an abandoned one's is not awaited).
func (p *Process) register(op string, client int, msg wire.Message, abandoned bool, timeout time.Duration) (*request, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.registerLocked(op, client, msg, abandoned, timeout)
}

// registerLocked is register with p.mu held.
func (p *Process) registerLocked(op string, client int, msg wire.Message, abandoned bool, timeout time.Duration) (*request, error) {
	if p.failure != nil {
		return nil, failedRequest{p.failure, false}
	}
	if prev := p.inflight[client]; client >= 0 && prev != nil {
		return nil, definite{fmt.Sprintf("driver %s: %v: client %d's %s (request %d) is unanswered", p.m.Name, ErrClientBusy, client, prev.op, prev.id), []error{ErrClientBusy}}
	}
	req := &request{id: p.nextID, op: op, client: client, key: msg.Key, token: msg.Token, done: make(chan result, 1),
		abandoned: abandoned, answered: abandoned, timeout: timeout}
	if !abandoned {
		req.deadline = time.Now().Add(timeout)
		if req.deadline.Before(p.nextSweep) {
			p.nextSweep = req.deadline
		}
	}
	p.nextID++
	p.pending[req.id] = req
	if client >= 0 {
		p.inflight[client] = req
	}
	return req, nil
}

// abandon stops waiting for req's reply; answered reports that the reply
// (or the process's failure, or the deadline's error) came first, and is
// r.
func (p *Process) abandon(req *request) (r result, answered bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !req.answered {
		req.answered, req.abandoned = true, true
		return result{}, false
	}
	return <-req.done, true
}

// StrayErrors delivers the error replies that name no request (the
// driver's answer to a line that was no request); at most 16 wait, later
// ones are dropped.
func (p *Process) StrayErrors() <-chan wire.Message { return p.stray }

// fail puts the process in its failed state, once: every request in
// flight fails with err (indefinite), every later one too (definite).
func (p *Process) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failure != nil {
		return
	}
	p.failure = err
	for id, req := range p.pending {
		p.deliver(req, result{err: failedRequest{err, true}})
		delete(p.pending, id)
	}
	clear(p.inflight)
}

// releaseLate releases a lease whose acquire lockbench had stopped
// waiting for, so that no lock is left held by nobody; its reply is
// dropped. It is called with p.mu held, and writes on a goroutine.
func (p *Process) releaseLate(client int, key, token string) {
	msg := wire.Message{Type: wire.TypeRelease, Client: wire.Int(client), Key: key, Token: token}
	req, err := p.registerLocked("release", client, msg, true, 0)
	if err != nil {
		return
	}
	msg.ID = wire.Int64(req.id)
	go p.sendLate(msg)
}

func (p *Process) sendLate(msg wire.Message) {
	if err := p.write(msg); err != nil {
		p.fail(err)
	}
}
