package driver

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
)

// outbox holds the lines waiting to be written on the driver's stdin.
// Whoever sends a line when no write is in progress writes every line
// waiting at once, without blocking (a non-blocking write); lines sent
// meanwhile wait for that writer, so that the requests of many clients
// sent together cost one system call, not one each, and no goroutine is
// woken to write them. What a non-blocking write cannot take (the pipe is
// full: the driver is not reading) is handed to writeLoop, which writes it
// blocking, with a deadline.
type outbox struct {
	mu      sync.Mutex
	lines   []byte // whole lines, in the order they were sent
	spare   []byte // the buffer last written, for the next lines
	writing bool   // a sender or writeLoop writes: the lines wait for it
	closed  bool
	raw     syscall.RawConn // the driver's stdin, for non-blocking writes
	kick    chan struct{}   // cap 1: writeLoop now writes the lines
	stop    chan struct{}   // closed by stopWriting
	done    chan struct{}   // closed when writeLoop returns
}

// directRounds bounds how many writes one sender makes for the lines
// others sent while it wrote, before it hands them to writeLoop.
const directRounds = 4

// The line is encoded straight into the outbox.
func (p *Process) write(msg wire.Message) error {
	return p.queue(func(b []byte) ([]byte, error) {
		b, err := wire.AppendMessage(b, &msg)
		if err != nil {
			return b, fmt.Errorf("driver %s: encode %s: %w", p.m.Name, msg.Type, err)
		}
		return b, nil
	})
}

// WriteLine writes line as it is (a newline added) on the driver's stdin,
// outside the protocol: the conformance suite's malformed requests. A
// reply with no in_reply_to comes on StrayErrors.
func (p *Process) WriteLine(line []byte) error {
	return p.queue(func(b []byte) ([]byte, error) { return append(b, line...), nil })
}

// queue appends a line (add appends it to the waiting lines, or fails and
// leaves them as they were) and a newline to the outbox, and writes the
// lines waiting unless a write is in progress.
func (p *Process) queue(add func([]byte) ([]byte, error)) error {
	o := &p.out
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return fmt.Errorf("driver %s: %w", p.m.Name, ErrClosed)
	}
	lines, err := add(o.lines)
	if err != nil {
		o.mu.Unlock()
		return err
	}
	o.lines = append(lines, '\n')
	if o.writing {
		o.mu.Unlock()
		return nil
	}
	o.writing = true
	for range directRounds {
		batch := o.lines
		o.lines = o.spare[:0]
		o.mu.Unlock()
		n := o.tryWrite(batch)
		o.mu.Lock()
		if n < len(batch) { // the rest, then the lines sent meanwhile
			o.lines = append(append(make([]byte, 0, len(batch)-n+len(o.lines)), batch[n:]...), o.lines...)
			break
		}
		o.spare = batch
		if len(o.lines) == 0 {
			o.writing = false
			o.mu.Unlock()
			return nil
		}
	}
	o.mu.Unlock()
	o.kick <- struct{}{} // writeLoop writes on, writing stays true
	return nil
}

// tryWrite writes what of b the pipe takes without waiting: how many
// bytes. An error (EAGAIN: the pipe is full; or another) writes nothing
// more; writeLoop's blocking write meets it again and reports it.
func (o *outbox) tryWrite(b []byte) int {
	written := 0
	_ = o.raw.Write(func(fd uintptr) bool {
		for written < len(b) {
			n, err := syscall.Write(int(fd), b[written:])
			if err == syscall.EINTR {
				continue
			}
			if err != nil || n <= 0 {
				return true
			}
			written += n
		}
		return true
	})
	return written
}

// writeLoop writes the waiting lines, blocking, once a sender handed them
// over (the pipe was full), until none wait; then senders write again. A
// write that does not finish within a request's deadline (a driver that
// does not read its stdin), or fails, fails the process: a line may be
// half written.
func (p *Process) writeLoop() {
	o := &p.out
	defer close(o.done)
	for {
		select {
		case <-o.kick:
		case <-o.stop:
			return
		}
		for {
			o.mu.Lock()
			batch := o.lines
			if len(batch) == 0 {
				o.writing = false
				o.mu.Unlock()
				break
			}
			o.lines = o.spare[:0]
			o.mu.Unlock()
			_ = p.stdin.SetWriteDeadline(time.Now().Add(p.deadline()))
			if _, err := p.stdin.Write(batch); err != nil {
				o.mu.Lock()
				closed := o.closed
				o.mu.Unlock()
				if !closed {
					p.fail(p.writeError(err))
				}
				return
			}
			o.mu.Lock()
			o.spare = batch
			o.mu.Unlock()
		}
	}
}

// writeError is the process's failure for a write to its stdin that
// failed.
func (p *Process) writeError(err error) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return indefinite{fmt.Sprintf("driver %s stopped reading its stdin (a request waited past its deadline to be written)", p.m.Name), []error{ErrNoReply}}
	case errors.Is(err, syscall.EPIPE):
		return p.exitError()
	case errors.Is(err, os.ErrClosed):
		return fmt.Errorf("driver %s: %w", p.m.Name, ErrClosed)
	}
	return fmt.Errorf("driver %s: write to its stdin: %w", p.m.Name, err)
}

// stopWriting ends writeLoop, a write in progress too, and refuses later
// lines.
func (p *Process) stopWriting() {
	o := &p.out
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	close(o.stop)
	_ = p.stdin.SetWriteDeadline(time.Now()) // a write blocked on a driver that does not read
	<-o.done
}
