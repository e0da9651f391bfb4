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

// outbox holds the lines waiting to be written on the driver's stdin. One
// goroutine (writeLoop) writes whatever is waiting in one write, so that
// the requests of many clients sent at once cost one system call, not one
// each.
type outbox struct {
	mu     sync.Mutex
	lines  []byte // whole lines, in the order they were sent
	closed bool
	kick   chan struct{} // cap 1: lines are waiting
	stop   chan struct{} // closed by stopWriting
	done   chan struct{} // closed when writeLoop returns
}

// write queues msg as one line on the driver's stdin.
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
// leaves them as they were) and a newline to the outbox.
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
	o.mu.Unlock()
	select {
	case o.kick <- struct{}{}:
	default:
	}
	return nil
}

// writeLoop writes the waiting lines until stopWriting. A write that
// does not finish within a request's deadline (a driver that does not
// read its stdin), or fails, fails the process: a line may be half
// written.
func (p *Process) writeLoop() {
	o := &p.out
	defer close(o.done)
	var spare []byte
	for {
		select {
		case <-o.kick:
		case <-o.stop:
			return
		}
		o.mu.Lock()
		batch := o.lines
		if len(batch) > 0 { // else written with the batch before
			o.lines = spare[:0]
		}
		o.mu.Unlock()
		if len(batch) == 0 {
			continue
		}
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
		spare = batch
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
