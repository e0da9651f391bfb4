package workloads

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// preciseTimer sleeps on a timerfd, Linux's high-resolution timer, read
// through the runtime's poller: a Go timer shorter than a millisecond
// wakes after one when the process is otherwise idle (the runtime polls
// with a timeout in whole milliseconds), a timerfd when it is due. The
// goroutine parks while it waits, so its thread runs the clients it woke.
type preciseTimer struct {
	fd   int
	file *os.File // nil when no timerfd could be made: Go timers
}

// newPreciseTimer makes a timerfd, or falls back to Go timers.
func newPreciseTimer() *preciseTimer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &preciseTimer{}
	}
	return &preciseTimer{fd: fd, file: os.NewFile(uintptr(fd), "timerfd")}
}

// sleep sleeps for d.
func (t *preciseTimer) sleep(d time.Duration) {
	if t.file == nil || d <= 0 {
		time.Sleep(d)
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	if err := unix.TimerfdSettime(t.fd, 0, &spec, nil); err != nil {
		time.Sleep(d)
		return
	}
	var expirations [8]byte
	_, _ = t.file.Read(expirations[:]) // parks until the timer fires
}

// close releases the timerfd.
func (t *preciseTimer) close() {
	if t.file != nil {
		_ = t.file.Close()
	}
}
