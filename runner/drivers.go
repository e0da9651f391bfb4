package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/procfs"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// driverCell is the driver processes of a drv:NAME cell: started once the
// cell's topology is up, its clients spread over them (client i on
// process i mod len(procs)), closed at the cell's end however it ends.
// Their Process.Close ends each process's group; the kernel kills them if
// lockbench dies first (driver.Start's Pdeathsig).
type driverCell struct {
	m      driver.Manifest
	prefix string
	procs  []*cellProcess
	// measuring is set when the measured phase begins: the library's
	// times count from then.
	measuring atomic.Bool
	// cpu is the processes' CPU at the measured phase's start, then
	// (endMeasure) what they used in it.
	cpu time.Duration
	// renewals are what the renewed notices told (a renewing driver's).
	renewals renewals
	// failure is the first failure of a process lockbench did not kill
	// (a broken protocol, an exit): it fails the cell.
	failMu  sync.Mutex
	failure error
	// stopWatch ends the watch (watch), once; nil before it began.
	stopWatch func()
	// clocks are the processes' clocks under client clock faults; nil
	// without (driverclock.go).
	clocks *driverClocks
}

// cellProcess is one driver process of a cell.
type cellProcess struct {
	p     *driver.Process
	index int    // from 1
	name  string // in fault events: driver-2 pid 12345
	// killed is set by a holder-crash: the process's end is the fault's.
	killed atomic.Bool
	// took are the library's own acquire times (took_us) in the measured
	// phase.
	mu   sync.Mutex
	took *hdrhistogram.Histogram
}

// startDrivers starts the driver processes of a cell of p with clients
// clients and keys under prefix, on the session s: each told where the
// topology is (through the network's proxies when the plan has network
// faults, so that they cover the drivers' connections too). It fails when
// a process cannot start or refuses init, or when the driver does not
// serve the topology's mode or the plan's limit; nothing is left running
// then.
func startDrivers(ctx context.Context, p plan.Plan, s *session, m driver.Manifest, prefix string, clients int) (*driverCell, error) {
	n := max(min(p.Procs(m.Language), clients), 1)
	clocks, err := newDriverClocks(p.Workload, n)
	if err != nil {
		return nil, err
	}
	dc := &driverCell{m: m, prefix: prefix, procs: make([]*cellProcess, n), renewals: renewals{ttl: m.LeaseTTL(p.TTL)}, clocks: clocks}
	groups := p.ClientGroupNames()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			group := groups[i%len(groups)]
			cfg, err := driverConfig(p, s, m, group, prefix, clientsOf(i, n, clients))
			cfg.OnNotice, cfg.Clock = dc.renewals.notice, clocks.of(i)
			if err == nil {
				var proc *driver.Process
				if proc, err = driver.Start(ctx, m, cfg); err == nil {
					dc.procs[i] = &cellProcess{p: proc, index: i + 1, name: fmt.Sprintf("driver-%d pid %d", i+1, proc.PID()), took: metrics.NewHistogram()}
					if local, ok := s.topo.(*topologies.Local); ok && s.net != nil {
						local.ClientProcess(proc.PID(), group)
					}
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, e := range errs {
		if err == nil {
			err = e // the first process's, in one line
		}
	}
	if err == nil {
		err = supports(dc.procs[0].p.Info(), s.topo.Access(), p)
	}
	if err != nil {
		dc.close()
		return nil, err
	}
	return dc, nil
}

// clientsOf is how many of clients are on process i of n.
func clientsOf(i, n, clients int) int {
	return clients/n + min(max(clients%n-i, 0), 1)
}

// driverConfig is what a driver process of m in a cell of p is started
// with, for its clients of group: the run's TTL, or lockbench's default
// for a library that has none (Manifest.LeaseTTL).
func driverConfig(p plan.Plan, s *session, m driver.Manifest, group, prefix string, clients int) (driver.Config, error) {
	access := s.topo.Access()
	for i, ep := range access.Endpoints {
		if ep.TLS != nil {
			return driver.Config{}, errors.New("a topology over TLS: lockbench keeps no TLS files to hand a driver")
		}
		if s.net != nil {
			addr, err := s.net.Through(group, ep.Addr)
			if err != nil {
				return driver.Config{}, err
			}
			access.Endpoints[i].Addr = addr
		}
	}
	cfg := driver.Config{Redis: driver.RedisOf(access), Prefix: prefix, Clients: clients,
		TTL: m.LeaseTTL(p.TTL), Retry: p.Retry, AcquireTimeout: p.AcquireTimeout, Limit: p.Limit, InterruptRelease: p.InterruptRelease}
	if len(access.Endpoints) > 0 {
		cfg.Password = access.Endpoints[0].Password
	}
	return cfg, nil
}

// supports says why the driver of info cannot serve access's mode, a
// semaphore of p's limit or p's interrupted releases; nil when it can.
func supports(info driver.Info, access topologies.Access, p plan.Plan) error {
	mode := driver.RedisOf(access).Mode
	switch caps := info.Capabilities; {
	case !caps.Supports(mode):
		return fmt.Errorf("%s %s does not serve Redis mode %s (it serves %s)", info.Library, info.Version, mode, strings.Join(caps.Modes, ", "))
	case p.Limit > 1 && !caps.Semaphore:
		return fmt.Errorf("%s %s is no semaphore: --limit %d needs one", info.Library, info.Version, p.Limit)
	case p.InterruptRelease && !caps.Interrupt:
		return fmt.Errorf("%s %s cannot release on an interrupted thread (no interrupt capability): --interrupt-release needs it", info.Library, info.Version)
	}
	return nil
}

// newLock is the cell's workloads.NewLock: client i's lock on process i
// mod len(procs).
func (dc *driverCell) newLock(env workloads.ClientEnv) (variants.Lock, error) {
	i := env.Index % len(dc.procs)
	proc := dc.procs[i]
	if err := dc.clocks.client(i, proc.p.Client(env.Index), env.Clock); err != nil {
		return nil, fmt.Errorf("%s %s: %w", dc.m.Name, proc.name, err)
	}
	lock := driver.NewLock(proc.p.Client(env.Index), driver.LockOptions{Prefix: dc.prefix, OnAttempt: env.OnAttempt,
		OnAcquired: func(l *driver.Lease) { dc.acquired(proc, l) }})
	pl := processLock{Lock: lock, proc: proc}
	if dc.renews() {
		pl.renewals = &dc.renewals
	}
	return pl, nil
}

// beginMeasure marks the measured phase's start: the library's times
// count from now, and the processes' CPU.
func (dc *driverCell) beginMeasure() {
	dc.cpu = dc.processCPU()
	dc.measuring.Store(true)
}

// endMeasure marks the measured phase's end: dc.cpu becomes what the
// processes used in it.
func (dc *driverCell) endMeasure() {
	if dc.measuring.Load() {
		dc.cpu = dc.processCPU() - dc.cpu
	}
}

// processCPU is the CPU the cell's processes have used so far.
func (dc *driverCell) processCPU() time.Duration {
	var sum time.Duration
	for _, proc := range dc.procs {
		cpu, _ := procfs.CPU(proc.p.PID())
		sum += cpu
	}
	return sum
}

// acquired keeps the library's time of an acquisition of the measured
// phase.
func (dc *driverCell) acquired(proc *cellProcess, l *driver.Lease) {
	if l.Took <= 0 || !dc.measuring.Load() {
		return
	}
	proc.mu.Lock()
	metrics.RecordMicros(proc.took, l.Took.Microseconds())
	proc.mu.Unlock()
}

// processLock is a client's lock on a driver process: holder faults act on
// the process (workloads.ProcessHolder).
type processLock struct {
	*driver.Lock
	proc *cellProcess
	// renewals, set when the driver renews, tell the margins its
	// leases' renewals.
	renewals *renewals
}

// Acquire acquires the lock called name; a renewing driver's lease says
// its renewals (renewingLease).
func (l processLock) Acquire(ctx context.Context, name string) (variants.Lease, error) {
	lease, err := l.Lock.Acquire(ctx, name)
	if err != nil || l.renewals == nil {
		return lease, err
	}
	return l.renewals.renewing(lease), nil
}

var _ workloads.ProcessHolder = processLock{}

func (l processLock) ProcessName() string  { return l.proc.name }
func (l processLock) PauseProcess() error  { return l.proc.p.Signal(syscall.SIGSTOP) }
func (l processLock) ResumeProcess() error { return l.proc.p.Signal(syscall.SIGCONT) }

// KillProcess kills the process (its end is then the fault's, not a
// failure of the driver's).
func (l processLock) KillProcess() error {
	l.proc.killed.Store(true)
	return l.proc.p.Signal(syscall.SIGKILL)
}

// watchInterval is how often a driver cell looks for a process that
// failed.
const watchInterval = 50 * time.Millisecond

// watch returns a context that ends with ctx, or when a process the cell
// did not kill fails (a broken protocol, an exit): the cell then stops,
// and fails with that error (failed). stop ends the watch; it may be
// called more than once, and close calls it.
func (dc *driverCell) watch(ctx context.Context) (cellCtx context.Context, stop func()) {
	cellCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-cellCtx.Done():
				return
			case <-t.C:
			}
			if err := dc.check(); err != nil {
				cancel()
				return
			}
		}
	})
	dc.stopWatch = sync.OnceFunc(func() {
		close(done)
		wg.Wait()
		_ = dc.check() // a failure in the last moments counts too
		cancel()
	})
	return cellCtx, dc.stopWatch
}

// check records the first failure of a process the cell did not kill.
func (dc *driverCell) check() error {
	dc.failMu.Lock()
	defer dc.failMu.Unlock()
	if dc.failure != nil {
		return dc.failure
	}
	for _, proc := range dc.procs {
		if err := proc.p.Err(); err != nil && !proc.killed.Load() {
			dc.failure = fmt.Errorf("%s: %w", proc.name, err)
			return dc.failure
		}
	}
	return nil
}

// failed is the failure that fails the cell, nil for none.
func (dc *driverCell) failed() error {
	dc.failMu.Lock()
	defer dc.failMu.Unlock()
	return dc.failure
}

// close ends the watch, then closes every process of the cell, at once
// (the processes' own close ending them is no failure of theirs). It
// may be called more than once.
func (dc *driverCell) close() {
	if dc.stopWatch != nil {
		dc.stopWatch()
	}
	var wg sync.WaitGroup
	for _, proc := range dc.procs {
		if proc != nil {
			wg.Go(func() { _ = proc.p.Close() })
		}
	}
	wg.Wait()
	dc.clocks.close()
}

// record is the cell's driver as the record keeps it. It closes the
// cell's processes first: what each left unanswered is known once it
// has ended.
func (dc *driverCell) record() *record.Driver {
	dc.close()
	info := dc.procs[0].p.Info()
	took := metrics.NewHistogram()
	var unanswered []record.UnansweredRequests
	for _, proc := range dc.procs {
		proc.mu.Lock()
		took.Merge(proc.took)
		proc.mu.Unlock()
		if byOp := proc.p.Unanswered(); len(byOp) > 0 {
			u := record.UnansweredRequests{Process: proc.index, PID: proc.p.PID(), ByOp: byOp, Answered: proc.p.Answered()}
			for _, n := range byOp {
				u.Requests += n
			}
			unanswered = append(unanswered, u)
		}
	}
	return &record.Driver{Name: dc.m.Name, Command: dc.m.Command, Library: info.Library, Version: info.Version,
		Language: info.Language, Procs: len(dc.procs), TTL: dc.renewals.ttl, LibraryAcquireUS: metrics.Quantiles(took), CPUSeconds: dc.cpu.Seconds(), Unanswered: unanswered}
}

// settings says, for the record, when the driver was told lockbench's
// default TTL because its library has none (the table's notes show it);
// "" otherwise: the run's --ttl, or the library's own.
func (dc *driverCell) settings(ttl time.Duration) string {
	if ttl > 0 || !dc.m.NoDefaultTTL {
		return ""
	}
	return fmt.Sprintf("ttl %v (lockbench's default: %s has none)", dc.m.LeaseTTL(0), dc.m.Name)
}

// fencing reports whether the cell's driver hands out fencing tokens.
func (dc *driverCell) fencing() bool { return dc.procs[0].p.Info().Capabilities.Fencing }
