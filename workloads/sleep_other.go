//go:build !linux

package workloads

import "time"

// preciseTimer is a Go timer where there is no timerfd: the open loop's
// arrivals may start up to about a millisecond late.
type preciseTimer struct{}

func newPreciseTimer() *preciseTimer        { return &preciseTimer{} }
func (*preciseTimer) sleep(d time.Duration) { time.Sleep(d) }
func (*preciseTimer) close()                {}
