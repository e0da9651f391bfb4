package clockshim

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Offset is the clock offset of one process run under the shim: 8 bytes,
// a signed count of nanoseconds, in a file that the process's shim maps
// shared and reads on every call. Add changes it with an atomic add
// through a mapping of its own, so the process's clock moves at once.
type Offset struct {
	shim, file string
}

// NewOffset makes the offset file called file, at zero, for processes
// run under shim.
func NewOffset(shim, file string) (*Offset, error) {
	if err := os.WriteFile(file, make([]byte, 8), 0o600); err != nil {
		return nil, fmt.Errorf("clock offset file: %w", err)
	}
	return &Offset{shim: shim, file: file}, nil
}

// File is the offset's file.
func (o *Offset) File() string { return o.file }

// Environ is the environment of a process run under the shim, reading
// this offset: env (os.Environ() when nil) with the shim preloaded before
// any LD_PRELOAD it already has.
func (o *Offset) Environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	preload := o.shim
	if old := os.Getenv("LD_PRELOAD"); old != "" {
		preload += " " + old
	}
	return append(env, "LD_PRELOAD="+preload, offsetEnv+"="+o.file)
}

// Loaded reports whether the process pid has the shim mapped: ld.so only
// warns, on the process's stderr, when it cannot preload it.
func (o *Offset) Loaded(pid int) error {
	maps, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoShim, err)
	}
	if !strings.Contains(string(maps), o.shim) {
		return fmt.Errorf("%w: %s did not load into pid %d", ErrNoShim, o.shim, pid)
	}
	return nil
}

// Add adds by to the offset and returns the new offset.
func (o *Offset) Add(by time.Duration) (time.Duration, error) {
	f, err := os.OpenFile(o.file, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("map %s: %w", o.file, err)
	}
	defer syscall.Munmap(b)
	offset := (*int64)(unsafe.Pointer(&b[0])) // page-aligned, so 8-byte aligned
	for {
		old := atomic.LoadInt64(offset)
		if by > 0 && old > math.MaxInt64-int64(by) || by < 0 && old < math.MinInt64-int64(by) {
			return time.Duration(old), fmt.Errorf("the clock is already %v off: %v more does not fit", time.Duration(old), by)
		}
		if atomic.CompareAndSwapInt64(offset, old, old+int64(by)) {
			return time.Duration(old + int64(by)), nil
		}
	}
}
