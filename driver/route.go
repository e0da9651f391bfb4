package driver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
)

// maxLine is the longest line a driver may write.
const maxLine = 1 << 20

// replies are the reply types each request accepts.
var replies = map[string][]string{
	"init":    {wire.TypeInitOK, wire.TypeError},
	"acquire": {wire.TypeAcquireOK, wire.TypeNotAcquired, wire.TypeError},
	"release": {wire.TypeReleaseOK, wire.TypeLeaseGone, wire.TypeError},
	"extend":  {wire.TypeExtendOK, wire.TypeLeaseGone, wire.TypeError},
	"clock":   {wire.TypeClockOK, wire.TypeError},
}

// read reads the driver's stdout, a line at a time, and routes each. At
// its end (the driver closed it: exited) the process fails, unless it is
// being closed. After a protocol violation it goes on reading, and drops
// what it reads, so that the driver never blocks on a full pipe.
func (p *Process) read() {
	defer close(p.readDone)
	r := bufio.NewReaderSize(p.stdout, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 && p.Err() == nil {
			if why := p.route(line); why != "" {
				p.fail(&ProtocolError{Driver: p.m.Name, Why: why, Line: quote(line)})
			}
		}
		if err != nil {
			p.mu.Lock()
			closing := p.closing
			p.mu.Unlock()
			if !closing {
				if errors.Is(err, bufio.ErrBufferFull) {
					p.fail(&ProtocolError{Driver: p.m.Name, Why: fmt.Sprintf("a line longer than %d bytes", maxLine), Line: quote(line)})
					_, _ = io.Copy(io.Discard, r)
				} else {
					p.fail(p.exitError())
				}
			}
			return
		}
	}
}

// readLine reads one line, without its newline, of at most maxLine bytes
// (bufio.ErrBufferFull past that).
// The line is r's own buffer, valid until the next read, unless it was
// longer than that buffer.
func readLine(r *bufio.Reader) ([]byte, error) {
	chunk, err := r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return bytes.TrimRight(chunk, "\r\n"), err
	}
	line := append([]byte(nil), chunk...)
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull && len(line) <= maxLine {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// route hands a line to the request it answers, or to the lease an unasked
// message names. It returns why the line breaks the protocol, "" when it
// does not.
func (p *Process) route(line []byte) string {
	var m received
	var err error
	if m.Message, err = wire.Decode(line); err != nil {
		return "not a JSON object (" + err.Error() + ")"
	}
	if m.Type == "" {
		return `a message without "type"`
	}
	m.at = time.Now()
	if m.InReplyTo == nil {
		return p.unasked(&m)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id := *m.InReplyTo
	req := p.pending[id]
	switch {
	case req == nil && m.Client != nil && p.inflight[*m.Client] == nil:
		return fmt.Sprintf("a reply for client %d, which has no request in flight", *m.Client)
	case req == nil:
		return fmt.Sprintf("in_reply_to %d names no request in flight", id)
	case req.client >= 0 && m.Client == nil:
		return fmt.Sprintf(`a reply to request %d (client %d) without "client"`, id, req.client)
	case req.client >= 0 && *m.Client != req.client && p.inflight[*m.Client] == nil:
		return fmt.Sprintf("a reply for client %d, which has no request in flight (request %d is client %d's)", *m.Client, id, req.client)
	case req.client >= 0 && *m.Client != req.client:
		return fmt.Sprintf("a reply to request %d of client %d names client %d", id, req.client, *m.Client)
	}
	if why := checkReply(req.op, &m.Message); why != "" {
		return why
	}
	if req.op == "init" {
		m.line = quote(line) // for the handshake's errors
	}
	delete(p.pending, id)
	if req.client >= 0 {
		p.answered++
	}
	if p.inflight[req.client] == req {
		delete(p.inflight, req.client)
	}
	r := result{msg: &m}
	switch m.Type {
	case wire.TypeAcquireOK:
		r.lease = p.newLease(req, &m)
		if req.abandoned {
			delete(p.leases, r.lease.key())
			p.releaseLate(req.client, req.key, m.Token)
		}
	case wire.TypeReleaseOK, wire.TypeLeaseGone:
		delete(p.leases, leaseKey{req.client, req.token})
	}
	p.deliver(req, r)
	return ""
}

// checkReply says why m is no reply to a request of op, "" when it is
// one. A raw request (the conformance suite's) takes any reply.
func checkReply(op string, m *wire.Message) string {
	if ok, known := replies[op]; known {
		found := false
		for _, t := range ok {
			found = found || t == m.Type
		}
		if !found {
			return fmt.Sprintf("%q is no reply to %s (expected one of %v)", m.Type, op, ok)
		}
	}
	switch {
	case m.Type == wire.TypeAcquireOK && m.Token == "":
		return `acquire_ok without "token"`
	case m.Type == wire.TypeNotAcquired && m.Reason != wire.ReasonBusy && m.Reason != wire.ReasonTimeout:
		return fmt.Sprintf(`not_acquired's reason %q is neither "busy" nor "timeout"`, m.Reason)
	case m.Type == wire.TypeError && m.Definite == nil:
		return `an error without "definite"`
	}
	return ""
}

// unasked takes a message with no in_reply_to: lease_lost and renewed go
// to their lease and to OnNotice; an error is the answer to a line that
// was no request (StrayErrors).
func (p *Process) unasked(m *received) string {
	switch m.Type {
	case wire.TypeError:
		select {
		case p.stray <- m.Message:
		default:
		}
		return ""
	case wire.TypeLeaseLost, wire.TypeRenewed:
	default:
		return fmt.Sprintf("a %s without in_reply_to", m.Type)
	}
	if m.Client == nil || m.Token == "" {
		return fmt.Sprintf(`a %s without "client" or "token"`, m.Type)
	}
	n := Notice{Type: m.Type, Client: *m.Client, Token: m.Token, Text: m.Text, Validity: wire.FromMillis(m.ValidityMs), At: m.at}
	p.mu.Lock()
	l := p.leases[leaseKey{n.Client, n.Token}]
	if l != nil && n.Type == wire.TypeLeaseLost {
		delete(p.leases, l.key())
	}
	p.mu.Unlock()
	if l != nil {
		l.notice(n)
	}
	if p.cfg.OnNotice != nil {
		p.cfg.OnNotice(n)
	}
	return ""
}
