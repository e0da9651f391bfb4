package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/lockbench/lockbench/driver/wire"
)

// server serves one lockbench process: the requests it reads, the replies
// it writes, a line each. Replies wait in an outbox that one goroutine
// writes, all that waits in one write.
type server struct {
	wmu     sync.Mutex
	waiting []byte        // replies not yet written, whole lines
	kick    chan struct{} // cap 1: replies wait
	out     io.Writer
	log     io.Writer

	ready atomic.Pointer[backend] // nil until init succeeded
	inits atomic.Int32            // init requests seen
}

func newServer(out, log io.Writer) *server {
	return &server{out: out, log: log, kick: make(chan struct{}, 1)}
}

// serve reads requests until in ends, answering each on a goroutine of
// its own but init, which it answers before it reads on.
func (s *server) serve(ctx context.Context, in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	go s.writeLoop()
	defer func() {
		if b := s.ready.Load(); b != nil {
			b.conn.Close()
		}
	}()
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			s.dispatch(ctx, line)
		}
		if err == io.EOF {
			return nil // stdin closed: exit at once, held locks left to expire
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
	}
}

// dispatch answers one line: init at once, any other request on a
// goroutine of its own, so that reading never waits for Redis.
func (s *server) dispatch(ctx context.Context, line []byte) {
	req, err := wire.Decode(line)
	if err != nil {
		s.send(wire.ErrorReply(nil, true, wire.CodeMalformed, "not a JSON object: "+err.Error()))
		return
	}
	if err := req.CheckRequest(); err != nil {
		s.send(wire.ErrorReply(&req, true, wire.CodeMalformed, err.Error()))
		return
	}
	if req.Type == wire.TypeInit {
		s.init(ctx, &req)
		return
	}
	b := s.ready.Load()
	if b == nil {
		s.send(wire.ErrorReply(&req, true, "no-init", "no successful init before this request"))
		return
	}
	go func() { s.send(b.serve(ctx, &req)) }()
}

// init connects to Redis as the request says, or refuses it.
func (s *server) init(ctx context.Context, req *wire.Message) {
	if s.inits.Add(1) > 1 {
		s.send(wire.ErrorReply(req, true, wire.CodeMalformed, "a second init"))
		return
	}
	b, err := newBackend(ctx, req)
	var refused unsupported
	switch {
	case errors.As(err, &refused):
		fmt.Fprintln(s.log, "go-lua: init refused:", err)
		s.send(wire.ErrorReply(req, true, wire.CodeUnsupported, err.Error()))
		return
	case err != nil:
		fmt.Fprintln(s.log, "go-lua: init failed:", err)
		s.send(wire.ErrorReply(req, true, wire.CodeIO, err.Error()))
		return
	}
	s.ready.Store(b)
	fmt.Fprintf(s.log, "go-lua: serving %s %v, prefix %s, %d clients, %s\n", req.Redis.Mode, req.Redis.Addrs, req.Prefix, req.Clients, b.settings)
	ok := wire.ReplyTo(req, wire.TypeInitOK)
	ok.Library, ok.Version, ok.Language = library, version(), language()
	ok.Capabilities = &wire.Capabilities{Extend: true, Blocking: true, Modes: modes}
	s.send(ok)
}

// send queues m as one line for writeLoop.
func (s *server) send(m wire.Message) {
	s.wmu.Lock()
	waiting, err := wire.AppendEncoded(s.waiting, &m)
	if err != nil {
		s.wmu.Unlock()
		fmt.Fprintln(s.log, "go-lua: encode:", err)
		return
	}
	s.waiting = append(waiting, '\n')
	s.wmu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// writeLoop writes the replies waiting, all of them in one write, for as
// long as the process lives.
func (s *server) writeLoop() {
	var spare []byte
	for range s.kick {
		s.wmu.Lock()
		batch := s.waiting
		if len(batch) > 0 { // else written with the batch before
			s.waiting = spare[:0]
		}
		s.wmu.Unlock()
		if len(batch) == 0 {
			continue
		}
		if _, err := s.out.Write(batch); err != nil {
			fmt.Fprintln(s.log, "go-lua: write stdout:", err)
			return
		}
		spare = batch
	}
}

// unsupported is an init the driver refuses (code "unsupported").
type unsupported struct{ why string }

func (u unsupported) Error() string { return u.why }
