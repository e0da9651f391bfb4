package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/wire"
)

// bareArg, as go-lua's first argument, runs its bare loop (docs/drivers.md,
// "The bare loop") instead of the protocol: driver.json's bare swaps the
// command's "serve" for it.
const bareArg = "bare"

// bare reads init and the loop request on in, sets up as init does
// (newBackend), runs a goroutine per client cycling its lock's Acquire
// and Release (the calls acquire and release make) on a lock name of its
// own, and writes one loop_ok line on out; or an error line.
func bare(ctx context.Context, in io.Reader, out io.Writer) error {
	reply, err := bareLoop(ctx, bufio.NewReader(in))
	if err != nil {
		code := wire.CodeIO
		var refused unsupported
		if errors.As(err, &refused) {
			code = wire.CodeUnsupported
		}
		reply = map[string]any{"type": wire.TypeError, "code": code, "definite": true, "text": err.Error()}
	}
	line, _ := json.Marshal(reply)
	if _, werr := out.Write(append(line, '\n')); werr != nil {
		return werr
	}
	return err
}

func bareLoop(ctx context.Context, in *bufio.Reader) (map[string]any, error) {
	first, err := in.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("read init: %w", err)
	}
	req, err := wire.Decode(first)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	second, err := in.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("read the loop request: %w", err)
	}
	var load driver.BareRequest
	if err := json.Unmarshal(second, &load); err != nil {
		return nil, fmt.Errorf("the loop request: %w", err)
	}
	b, err := newBackend(ctx, &req)
	if err != nil {
		return nil, err
	}
	defer b.conn.Close()
	var (
		stop, measuring atomic.Bool
		cycles          atomic.Int64
		wg              sync.WaitGroup
		mu              sync.Mutex
		took            []time.Duration
		failure         error
	)
	for i := range load.Clients {
		lock, err := b.lockOf(i)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "c0:lock:" + strconv.Itoa(i) // lockbench's key, less the prefix, as acquire gives it
			var mine []time.Duration
			defer func() { mu.Lock(); took = append(took, mine...); mu.Unlock() }()
			for !stop.Load() {
				start := time.Now()
				lease, err := lock.Acquire(ctx, key)
				t := time.Since(start)
				if err == nil {
					err = lease.Release(ctx)
				}
				if err != nil {
					mu.Lock()
					failure = cmp.Or(failure, fmt.Errorf("client %d on %s: %w", i, key, err))
					mu.Unlock()
					stop.Store(true)
					return
				}
				cycles.Add(1)
				if measuring.Load() {
					mine = append(mine, t)
				}
			}
		}()
	}
	time.Sleep(wire.FromMillis(load.WarmupMs))
	warmup, cpu0, t0 := cycles.Load(), cpuNow(), time.Now()
	measuring.Store(true)
	time.Sleep(wire.FromMillis(load.DurationMs))
	stop.Store(true)
	wg.Wait()
	elapsed, cpu := time.Since(t0), cpuNow()-cpu0
	if failure != nil {
		return nil, failure
	}
	slices.Sort(took)
	var p50 time.Duration
	if len(took) > 0 {
		p50 = took[len(took)/2]
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	return map[string]any{"type": "loop_ok", "library": library, "version": version(),
		"cycles": cycles.Load() - warmup, "warmup_cycles": warmup,
		"elapsed_us": us(elapsed), "cpu_us": us(cpu), "acquire_p50_us": us(p50)}, nil
}

// cpuNow is this process's user and system CPU so far.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
