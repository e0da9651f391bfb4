package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
)

// server serves one lockbench process: the requests it reads, the replies
// it writes, a line each. A reply is appended to the lines waiting; the
// sender that finds no write in progress writes them, and whatever others
// append meanwhile, all that waits in one write: it first yields, so that
// the clients whose Redis replies came in the same read (woken together,
// ready to run) add theirs, and one write carries them (0.5 writes a
// cycle, not 1.85, in BenchmarkProtocolCost). No writer goroutine: a
// hand-off to one cost a wake-up per write.
type server struct {
	wmu     sync.Mutex
	waiting []byte // replies not yet written, whole lines
	spare   []byte // the buffer of the last write, for the next lines
	writing bool   // a sender is writing: the others leave their lines
	broken  bool   // a write failed: lines are dropped
	out     io.Writer
	log     io.Writer

	ready atomic.Pointer[backend] // nil until init succeeded
	inits atomic.Int32            // init requests seen

	// workers serve each client's requests, one goroutine per client; the
	// reader hands it each request. Only the reader touches the map.
	workers map[int]chan *wire.Message
}

func newServer(out, log io.Writer) *server {
	return &server{out: out, log: log, workers: map[int]chan *wire.Message{}}
}

// serve reads requests until in ends, answering each on its client's
// worker but init, which it answers before it reads on.
func (s *server) serve(ctx context.Context, in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	defer func() {
		for _, w := range s.workers {
			close(w)
		}
		if b := s.ready.Load(); b != nil {
			b.conn.Close()
		}
	}()
	var long []byte // a line longer than r's buffer, gathered
	for {
		// The line is r's buffer (dispatch copies what it keeps), unless
		// it is longer.
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull || long != nil {
			long = append(long, line...)
			if err == bufio.ErrBufferFull {
				continue
			}
			line, long = long, nil
		}
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

// dispatch answers one line: init at once, any other request on its
// client's worker, so that reading never waits for Redis.
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
	switch req.Type {
	case wire.TypeInit:
		s.init(ctx, &req)
		return
	case wire.TypeClock:
		// Go reads the wall clock through the vDSO, past the clock shim:
		// this answers the machine's clock, and lockbench refuses client
		// clock faults for go-lua saying so
		ok := wire.ReplyTo(&req, wire.TypeClockOK)
		ok.NowMs = float64(time.Now().UnixMicro()) / 1000
		s.send(ok)
		return
	}
	b := s.ready.Load()
	if b == nil {
		s.send(wire.ErrorReply(&req, true, "no-init", "no successful init before this request"))
		return
	}
	w := s.workers[*req.Client]
	if w == nil {
		w = make(chan *wire.Message, 1)
		s.workers[*req.Client] = w
		go s.work(ctx, b, w)
	}
	select {
	case w <- &req:
	default: // its worker is busy and one waits (lockbench sends no such thing): no waiting
		go func() { s.send(b.serve(ctx, &req)) }()
	}
}

// work serves the requests of one client, in order, until reqs closes. A
// goroutine per client rather than per request: lockbench sends a client's
// requests one at a time, and a long-lived goroutine's stack is grown
// once, where a new goroutine per request grew its stack on each (about a
// tenth of go-lua's CPU per request).
func (s *server) work(ctx context.Context, b *backend, reqs <-chan *wire.Message) {
	for req := range reqs {
		s.send(b.serve(ctx, req))
	}
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

// send writes m as one line, with the lines waiting, unless another
// sender is writing: then that one writes it next.
func (s *server) send(m wire.Message) {
	s.wmu.Lock()
	waiting, err := wire.AppendEncoded(s.waiting, &m)
	if err != nil {
		s.wmu.Unlock()
		fmt.Fprintln(s.log, "go-lua: encode:", err)
		return
	}
	s.waiting = append(waiting, '\n')
	if s.writing || s.broken {
		s.wmu.Unlock()
		return
	}
	s.writing = true
	s.wmu.Unlock()
	runtime.Gosched() // the replies of other clients ready to run join this write
	s.wmu.Lock()
	for len(s.waiting) > 0 {
		batch := s.waiting
		s.waiting = s.spare[:0]
		s.wmu.Unlock()
		_, err := s.out.Write(batch)
		s.wmu.Lock()
		s.spare = batch
		if err != nil {
			fmt.Fprintln(s.log, "go-lua: write stdout:", err)
			s.broken = true
			break
		}
	}
	s.writing = false
	s.wmu.Unlock()
}

// unsupported is an init the driver refuses (code "unsupported").
type unsupported struct{ why string }

func (u unsupported) Error() string { return u.why }
