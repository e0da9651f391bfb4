package conform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lockbench/lockbench/clockshim"
	"github.com/lockbench/lockbench/driver"
)

// clockMove is how far checkClock moves the driver's clock.
const clockMove = time.Hour

// checkClock starts a second process of the driver under the clock shim,
// its clock moved an hour ahead, and asks it for its clock (the clock
// request). A runtime that reads the moved clock takes client clock
// faults; one that reads the machine's clock past the shim (Go's vDSO)
// passes too, and the detail says lockbench refuses those faults for it.
// No answer, or a clock that is neither, fails.
func checkClock(ctx context.Context, s *suite) (string, error) {
	shim, err := clockshim.Path()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "lockbench-check-clock-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	o, err := clockshim.NewOffset(shim, filepath.Join(dir, "offset"))
	if err != nil {
		return "", err
	}
	if _, err := o.Add(clockMove); err != nil {
		return "", err
	}
	cfg := s.config()
	cfg.Clock = o
	p, err := driver.Start(ctx, s.o.Driver, cfg)
	if err != nil {
		return "", err
	}
	defer p.Close()
	read, err := p.Client(0).ClockOffset(ctx)
	if err != nil {
		return "", fmt.Errorf("no clock_ok to a clock request: %w", err)
	}
	switch {
	case (read - clockMove).Abs() <= driver.ClockSlack:
		return fmt.Sprintf("moved %v by the clock shim, it reads %v: client clock faults reach it", clockMove, read.Round(time.Millisecond)), nil
	case read.Abs() <= driver.ClockSlack:
		return fmt.Sprintf("moved %v by the clock shim, it reads the machine's clock (%v): its runtime bypasses the shim, and client clock faults are refused for it",
			clockMove, read.Round(time.Millisecond)), nil
	}
	return "", fmt.Errorf("moved %v by the clock shim, it reads %v from lockbench's clock, neither the moved clock nor the machine's", clockMove, read.Round(time.Millisecond))
}
