package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lockbench/lockbench/clockshim"
	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/workloads"
)

// Client clocks on driver processes. A driver's library reads its own
// process's wall clock, so a cell with client clocks (--clock-skew,
// --clock-jump) runs each driver process under the clock shim, its offset
// file in a directory of the cell's. A process has one clock, its first
// client's offset, which the other clients on it share (Clock.ShareOffset;
// under a spread skew a cell has up to plan.SkewDriverProcs processes, so
// that the skew spreads over as many clocks). When a process's first
// client is made, its offset is set and checked through the driver's
// clock request; a
// runtime that reads its clock past the shim (Go's vDSO) or a driver that
// cannot say its clock fails the cell, naming it, rather than run on the
// true clock. The jumps move every process's offset at their time.

// clockProbe is how far a process's clock is moved, for an instant before
// its first request, to see that its runtime reads the moved clock.
const clockProbe = time.Hour

// clockCheckTimeout bounds the clock request of one process.
const clockCheckTimeout = 10 * time.Second

// ErrClockNotReached is wrapped by the error of a driver process whose
// runtime does not read the clock lockbench moves.
var ErrClockNotReached = errors.New("client clocks do not reach the driver")

// driverClocks are the offsets of a cell's driver processes, by process.
type driverClocks struct {
	dir     string
	offsets []*clockshim.Offset
	first   []*workloads.Clock // by process: its first client's clock, nil before its offset is set
	mu      sync.Mutex
	jumping sync.Once
	stop    chan struct{}
	done    sync.WaitGroup
	closing sync.Once
}

// newDriverClocks makes the offset files of n processes; nil when the
// workload has no client clocks.
func newDriverClocks(w workloads.Spec, n int) (*driverClocks, error) {
	if w.Clocks.IsZero() {
		return nil, nil
	}
	shim, err := clockshim.Path()
	if err != nil {
		return nil, fmt.Errorf("client clocks on a driver: %w", err)
	}
	dir, err := os.MkdirTemp("", "lockbench-driver-clocks-")
	if err != nil {
		return nil, err
	}
	c := &driverClocks{dir: dir, first: make([]*workloads.Clock, n), stop: make(chan struct{})}
	for i := range n {
		o, err := clockshim.NewOffset(shim, filepath.Join(dir, fmt.Sprintf("driver-%d", i+1)))
		if err != nil {
			c.close()
			return nil, err
		}
		c.offsets = append(c.offsets, o)
	}
	return c, nil
}

// of is process i's offset, nil without client clocks.
func (c *driverClocks) of(i int) *clockshim.Offset {
	if c == nil {
		return nil
	}
	return c.offsets[i]
}

// client sets process i's clock to clock's offset when clock is its first
// client's, checking through cl that the driver reads it, and gives a
// later client the first one's offset; the first call starts the jumps.
func (c *driverClocks) client(i int, cl *driver.Client, clock *workloads.Clock) error {
	if c == nil {
		return nil
	}
	c.jumping.Do(func() { c.jump(clock) })
	c.mu.Lock()
	defer c.mu.Unlock()
	if first := c.first[i]; first != nil {
		clock.ShareOffset(first)
		return nil
	}
	o := c.offsets[i]
	if _, err := o.Add(clockProbe); err != nil {
		return err
	}
	err := checkClock(cl, clockProbe)
	if _, e := o.Add(clock.Offset() - clockProbe); err == nil {
		err = e
	}
	if err != nil {
		return err
	}
	c.first[i] = clock
	return nil
}

// checkClock asks the driver for its clock and says whether it reads
// lockbench's moved by offset.
func checkClock(cl *driver.Client, offset time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), clockCheckTimeout)
	defer cancel()
	read, err := cl.ClockOffset(ctx)
	if err != nil {
		return fmt.Errorf("%w: it cannot say its clock (%w)", ErrClockNotReached, err)
	}
	if (read - offset).Abs() > driver.ClockSlack {
		return fmt.Errorf("%w: moved %v, its runtime reads %v from lockbench's clock (it reads the wall clock past the clock shim)",
			ErrClockNotReached, offset, read.Round(time.Millisecond))
	}
	return nil
}

// jump moves every process's clock at each of clock's jumps, until close.
func (c *driverClocks) jump(clock *workloads.Clock) {
	start, jumps := clock.Jumps()
	if len(jumps) == 0 {
		return
	}
	c.done.Go(func() {
		for _, j := range jumps {
			t := time.NewTimer(time.Until(start.Add(j.At)))
			select {
			case <-c.stop:
				t.Stop()
				return
			case <-t.C:
			}
			for _, o := range c.offsets {
				_, _ = o.Add(j.By) // a jump that does not fit is refused at parse time (±24h)
			}
		}
	})
}

// close stops the jumps and removes the offset files.
func (c *driverClocks) close() {
	if c == nil {
		return
	}
	c.closing.Do(func() {
		close(c.stop)
		c.done.Wait()
		_ = os.RemoveAll(c.dir)
	})
}
