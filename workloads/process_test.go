package workloads_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
	"github.com/lockbench/lockbench/workloads"
)

// ttlStore is an in-memory lock with leases that expire, shared by the
// fake processes' locks: what Redis is to a lock driver.
type ttlStore struct {
	mu     sync.Mutex
	ttl    time.Duration
	owners map[string]ttlOwner
	seq    int
}

type ttlOwner struct {
	token   int
	expires time.Time
}

func (s *ttlStore) try(name string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, held := s.owners[name]; held && time.Now().Before(o.expires) {
		return 0, false
	}
	s.seq++
	s.owners[name] = ttlOwner{token: s.seq, expires: time.Now().Add(s.ttl)}
	return s.seq, true
}

func (s *ttlStore) release(name string, token int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, held := s.owners[name]; !held || o.token != token || time.Now().After(o.expires) {
		return variants.ErrLeaseLost
	}
	delete(s.owners, name)
	return nil
}

// fakeProcess is a process apart that serves locks: stopped, its calls
// wait; killed, they fail.
type fakeProcess struct {
	name                   string
	stopped                chan struct{} // closed while it runs
	mu                     sync.Mutex
	killed                 atomic.Bool
	pauses, resumes, kills atomic.Int64
}

var errGone = errors.New("fake process: gone")

func newFakeProcess(name string) *fakeProcess {
	p := &fakeProcess{name: name, stopped: make(chan struct{})}
	close(p.stopped)
	return p
}

// running waits while the process is stopped and fails once it is killed.
func (p *fakeProcess) running(ctx context.Context) error {
	p.mu.Lock()
	run := p.stopped
	p.mu.Unlock()
	select {
	case <-run:
	case <-ctx.Done():
		return ctx.Err()
	}
	if p.killed.Load() {
		return errGone
	}
	return nil
}

// procLock is a client's lock in a fakeProcess.
type procLock struct {
	p         *fakeProcess
	store     *ttlStore
	onAttempt func(error)
}

var _ workloads.ProcessHolder = procLock{}

func (l procLock) ProcessName() string { return l.p.name }

func (l procLock) PauseProcess() error {
	l.p.pauses.Add(1)
	l.p.mu.Lock()
	l.p.stopped = make(chan struct{})
	l.p.mu.Unlock()
	return nil
}

func (l procLock) ResumeProcess() error {
	l.p.resumes.Add(1)
	l.p.mu.Lock()
	close(l.p.stopped)
	l.p.mu.Unlock()
	return nil
}

func (l procLock) KillProcess() error {
	l.p.kills.Add(1)
	l.p.killed.Store(true)
	return nil
}

// Acquire blocks, as a library's blocking acquire does, out of the
// workload's sight: one attempt per call.
func (l procLock) Acquire(ctx context.Context, name string) (variants.Lease, error) {
	for {
		if err := l.p.running(ctx); err != nil {
			l.onAttempt(err)
			return nil, err
		}
		if token, ok := l.store.try(name); ok {
			l.onAttempt(nil)
			return procLease{l: l, name: name, token: token}, nil
		}
		select {
		case <-ctx.Done():
			l.onAttempt(ctx.Err())
			return nil, ctx.Err()
		case <-time.After(200 * time.Microsecond):
		}
	}
}

type procLease struct {
	l     procLock
	name  string
	token int
}

func (r procLease) Release(ctx context.Context) error {
	if err := r.l.p.running(ctx); err != nil {
		return err
	}
	return r.l.store.release(r.name, r.token)
}
func (procLease) Token() uint64         { return 0 }
func (procLease) Lost() <-chan struct{} { return nil }

// procLocks spreads the clients over n fake processes, client i on
// process i mod n.
func procLocks(n int, ttl time.Duration) (workloads.NewLock, []*fakeProcess) {
	store := &ttlStore{ttl: ttl, owners: map[string]ttlOwner{}}
	var procs []*fakeProcess
	for i := range n {
		procs = append(procs, newFakeProcess(fmt.Sprintf("proc-%d pid %d", i+1, 1000+i)))
	}
	return func(env workloads.ClientEnv) (variants.Lock, error) {
		return procLock{p: procs[env.Index%n], store: store, onAttempt: env.OnAttempt}, nil
	}, procs
}

func mustFault(t *testing.T, spec string) faults.Fault {
	t.Helper()
	f, err := faults.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// holder-crash on a client of a process apart kills the process: every
// client of it counts as crashed once and stops, the others go on and take
// the orphaned lock after its TTL; the event names the process.
func TestHolderCrashKillsTheProcess(t *testing.T) {
	newLock, procs := procLocks(2, 200*time.Millisecond)
	spec := workloads.Spec{Clients: 6, Keys: 1, Hold: mustDist(t, "1ms"), Duration: 1500 * time.Millisecond,
		Faults: []faults.Fault{mustFault(t, "at=300ms holder-crash")}, LeaseTTL: 200 * time.Millisecond}
	o := oracle.New(1, 1)
	out, err := workloads.Run(context.Background(), spec, newLock, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	var killed *fakeProcess
	for _, p := range procs {
		if p.kills.Load() > 0 {
			if killed != nil {
				t.Fatalf("both processes were killed")
			}
			killed = p
		}
	}
	if killed == nil || killed.kills.Load() != 1 {
		t.Fatalf("no process was killed once: %+v", procs)
	}
	if got := out.Measured.Crashed + out.Warmup.Crashed; got != 3 {
		t.Errorf("crashed %d, want 3: the killed process's clients, once each", got)
	}
	if len(out.FaultEvents) != 1 || out.FaultEvents[0].Node != killed.name || out.FaultEvents[0].Action != "holder-crash" {
		t.Errorf("events %+v, want one holder-crash naming %q", out.FaultEvents, killed.name)
	}
	// The orphaned lock comes back after its TTL, to the other process's
	// clients, who counted as waiting from their asking. (Not before it;
	// a loaded machine may wake them late.)
	if rep := o.Report(); rep.LongestUnavailable < 150*time.Millisecond || rep.LongestUnavailable > 200*time.Millisecond+time.Second {
		t.Errorf("longest unavailable %v, want about the TTL (200ms)", rep.LongestUnavailable)
	}
	if out.Measured.Acquisitions == 0 {
		t.Error("no acquisition after the crash")
	}
}

// holder-pause on a client of a process apart stops the process (its
// other clients with it) and resumes it after for=; the event names it.
func TestHolderPauseStopsTheProcess(t *testing.T) {
	newLock, procs := procLocks(3, 100*time.Millisecond)
	spec := workloads.Spec{Clients: 3, Keys: 1, Hold: mustDist(t, "1ms"), Duration: 1200 * time.Millisecond,
		Faults: []faults.Fault{mustFault(t, "at=200ms holder-pause for=400ms")}}
	o := oracle.New(1, 1)
	out, err := workloads.Run(context.Background(), spec, newLock, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paused []string
	for _, p := range procs {
		if p.pauses.Load() != p.resumes.Load() || p.kills.Load() != 0 {
			t.Errorf("%s: %d pauses, %d resumes, %d kills", p.name, p.pauses.Load(), p.resumes.Load(), p.kills.Load())
		}
		if p.pauses.Load() > 0 {
			paused = append(paused, p.name)
		}
	}
	if len(paused) != 1 {
		t.Fatalf("paused %v, want one process", paused)
	}
	if len(out.FaultEvents) != 1 || out.FaultEvents[0].Node != paused[0] || out.FaultEvents[0].Action != "holder-pause" {
		t.Errorf("events %+v, want one holder-pause naming %q", out.FaultEvents, paused[0])
	}
	// The pause outlasts the TTL: another process's client takes the
	// lock while the paused holder is still inside.
	if rep := o.Report(); rep.Overlaps == 0 {
		t.Errorf("no overlap after a pause of 400ms with a TTL of 100ms: %+v", rep)
	}
}
