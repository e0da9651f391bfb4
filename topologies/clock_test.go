package topologies

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clockshim"
	"github.com/lockbench/lockbench/redisinfo"
)

// startClocked starts spec with the clock shim preloaded into every node;
// without a C compiler to build it the test fails saying what to install.
func startClocked(t *testing.T, spec Spec) *Local {
	t.Helper()
	l := startLocal(t, spec)
	if err := ClockReady(l); err != nil {
		t.Fatalf("clock faults need the clock shim: %v", err)
	}
	return l
}

// serverClock is what TIME on the node at addr says, less lockbench's own
// clock.
func serverClock(t *testing.T, addr string) time.Duration {
	t.Helper()
	before := time.Now()
	reply, err := do(t, addr, "TIME").AsStrSlice()
	if err != nil || len(reply) != 2 {
		t.Fatalf("TIME on %s: %q, %v", addr, reply, err)
	}
	sec, _ := strconv.ParseInt(reply[0], 10, 64)
	usec, _ := strconv.ParseInt(reply[1], 10, 64)
	return time.Unix(sec, usec*1000).Sub(before)
}

// near reports whether got is within 500 ms of want.
func near(got, want time.Duration) bool { return (got - want).Abs() < 500*time.Millisecond }

// mapsOf is /proc/PID/maps of the node called name: what its process has
// loaded. (Redis overwrites its environment with its process title, so
// /proc/PID/environ tells nothing.)
func mapsOf(t *testing.T, l *Local, name string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(l.PID(name)) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The shim is preloaded into every node's process, each node with an
// offset file of its own, and moves nothing until a jump.
func TestClockShimLoads(t *testing.T) {
	l := startClocked(t, Spec{Name: "local:replicated?replicas=1"})
	files := map[string]bool{}
	for _, name := range []string{"master", "replica-1"} {
		n := mustNode(t, l, name)
		if !strings.Contains(mapsOf(t, l, name), l.clockShim) {
			t.Errorf("%s: %s is not mapped into its process", name, l.clockShim)
		}
		files[n.proc.clock.File()] = true
		if off := serverClock(t, n.Endpoint.Addr); !near(off, 0) {
			t.Errorf("%s: clock %v off before any jump", name, off)
		}
	}
	if len(files) != 2 {
		t.Errorf("the nodes share an offset file: %v", files)
	}
	checkWriteRead(t, l)
}

// A forward jump past a key's PX expiry removes it on its next access; a
// jump back lengthens the TTL of the keys that live; the other node's
// clock and keys are untouched; the clock stays moved across a restart,
// and a jump made while the node is down shows when it is up again.
func TestClockJump(t *testing.T) {
	faulted(t)
	l := startClocked(t, Spec{Name: "local:redlock?nodes=2"})
	addr, other := addrOf(t, l, "node-1"), addrOf(t, l, "node-2")
	for _, a := range []string{addr, other} {
		if err := do(t, a, "SET", "k", "v", "PX", "60000").Error(); err != nil {
			t.Fatal(err)
		}
		if err := do(t, a, "SET", "forever", "v").Error(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.ClockJump(t.Context(), "node-1", 61*time.Second); err != nil {
		t.Fatalf("ClockJump +61s: %v", err)
	}
	if off := serverClock(t, addr); !near(off, 61*time.Second) {
		t.Errorf("node-1's clock is %v off after +61s", off)
	}
	if n, _ := do(t, addr, "EXISTS", "k").AsInt64(); n != 0 {
		t.Errorf("EXISTS k = %d after +61s on a 60 s TTL; want 0 (expired)", n)
	}
	if n, _ := do(t, addr, "EXISTS", "forever").AsInt64(); n != 1 {
		t.Errorf("EXISTS forever = %d; a key without TTL must outlive any jump", n)
	}
	if n, _ := do(t, other, "EXISTS", "k").AsInt64(); n != 1 || !near(serverClock(t, other), 0) {
		t.Errorf("node-2: EXISTS k = %d, clock %v off; node-1's jump must not touch it", n, serverClock(t, other))
	}

	// Back to the real clock, then 10 s behind it: a 2 s key lives ~12 s.
	if err := l.ClockJump(t.Context(), "node-1", -71*time.Second); err != nil {
		t.Fatalf("ClockJump -71s: %v", err)
	}
	if off := serverClock(t, addr); !near(off, -10*time.Second) {
		t.Errorf("node-1's clock is %v off after +61s-71s", off)
	}
	if err := do(t, addr, "SET", "short", "v", "PX", "2000").Error(); err != nil {
		t.Fatal(err)
	}
	if err := l.ClockJump(t.Context(), "node-1", -10*time.Second); err != nil {
		t.Fatalf("ClockJump -10s: %v", err)
	}
	if ttl, _ := do(t, addr, "PTTL", "short").AsInt64(); ttl < 11_000 || ttl > 12_000 {
		t.Errorf("PTTL short = %d ms after -10s on a 2 s TTL; want about 12000", ttl)
	}
	time.Sleep(2500 * time.Millisecond)
	if n, _ := do(t, addr, "EXISTS", "short").AsInt64(); n != 1 {
		t.Errorf("EXISTS short = %d 2.5 s after a 2 s SET and a jump back of 10 s; want 1", n)
	}

	if err := l.Restart(t.Context(), "node-1", 0); err != nil {
		t.Fatal(err)
	}
	if off := serverClock(t, addr); !near(off, -20*time.Second) {
		t.Errorf("after a restart node-1's clock is %v off; want the -20s it had", off)
	}
	if err := l.Kill("node-1"); err != nil {
		t.Fatal(err)
	}
	if err := l.ClockJump(t.Context(), "node-1", time.Hour); err != nil {
		t.Errorf("ClockJump of a killed node: %v", err)
	}
	if err := l.Restart(t.Context(), "node-1", 0); err != nil {
		t.Fatal(err)
	}
	if off := serverClock(t, addr); !near(off, time.Hour-20*time.Second) {
		t.Errorf("after a jump while down node-1's clock is %v off; want 59m40s", off)
	}
	// Two jumps of one node at once add up, and both check out.
	errs := make(chan error, 2)
	for _, by := range []time.Duration{5 * time.Second, 7 * time.Second} {
		go func() { errs <- l.ClockJump(t.Context(), "node-2", by) }()
	}
	if err := errors.Join(<-errs, <-errs); err != nil {
		t.Errorf("two jumps at once: %v", err)
	}
	if off := serverClock(t, other); !near(off, 12*time.Second) {
		t.Errorf("node-2's clock is %v off after +5s and +7s at once; want 12s", off)
	}
	if err := l.ClockJump(t.Context(), "nope", time.Second); !errors.Is(err, ErrNoNode) {
		t.Errorf("ClockJump(nope) = %v; want ErrNoNode", err)
	}
	if err := l.ClockJump(t.Context(), "node-1", math.MaxInt64); err == nil {
		t.Errorf("a jump past the largest offset went through")
	}
}

// LOCKBENCH_CLOCK_SHIM=off starts the nodes without the shim, and clock
// jumps fail saying so; a missing shim file is refused.
func TestClockShimOff(t *testing.T) {
	t.Setenv(ClockShimEnv, "off")
	l := startLocal(t, Spec{Name: "local"})
	if err := ClockReady(l); !errors.Is(err, ErrNoClockShim) || !strings.Contains(err.Error(), ClockShimEnv+"=off") {
		t.Errorf("ClockReady = %v; want ErrNoClockShim naming %s=off", err, ClockShimEnv)
	}
	if err := l.ClockJump(t.Context(), "master", time.Minute); !errors.Is(err, ErrNoClockShim) {
		t.Errorf("ClockJump = %v; want ErrNoClockShim", err)
	}
	if maps := mapsOf(t, l, "master"); strings.Contains(maps, "lockbench-clock") {
		t.Errorf("with %s=off the shim is loaded all the same", ClockShimEnv)
	}
	t.Setenv(ClockShimEnv, filepath.Join(t.TempDir(), "missing.so"))
	if _, err := clockshim.Path(); !errors.Is(err, ErrNoClockShim) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing %s: %v; want ErrNoClockShim and ErrNotExist", ClockShimEnv, err)
	}
}

// Clocks move only on nodes lockbench started.
func TestClockOnlyForOwnNodes(t *testing.T) {
	ext, err := OpenExternal(Spec{Targets: []string{"redis://127.0.0.1:7000"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ClockReady(ext); !errors.Is(err, ErrNotManaged) {
		t.Errorf("ClockReady(external) = %v; want ErrNotManaged", err)
	}
	ctrl, err := DestructiveControl(ext)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.ClockJump(t.Context(), "master", time.Second); !errors.Is(err, ErrNotManaged) {
		t.Errorf("ClockJump on an external server = %v; want ErrNotManaged", err)
	}
	emb, err := StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if err := ClockReady(emb); !errors.Is(err, ErrNotManaged) {
		t.Errorf("ClockReady(embedded) = %v; want ErrNotManaged", err)
	}
}

// threadCPU is the CPU time, in clock ticks, that the thread called comm
// of the node called name has used; -1 when it has none.
func threadCPU(t *testing.T, l *Local, name, comm string) int {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(l.PID(name)) + "/task/*")
	for _, task := range tasks {
		if c, _ := os.ReadFile(task + "/comm"); strings.TrimSpace(string(c)) != comm {
			continue
		}
		stat, err := os.ReadFile(task + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		// utime and stime are the 14th and 15th fields; the name, in
		// parentheses, is the 2nd.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		utime, _ := strconv.Atoi(fields[11])
		stime, _ := strconv.Atoi(fields[12])
		return utime + stime
	}
	return -1
}

// With the clock moved back, jemalloc's background thread, which sleeps
// until a deadline it reads from gettimeofday, still sleeps: the shim
// moves pthread_cond_timedwait's deadline back onto the real clock.
// Without that it wakes at once, again and again, for as long as it has
// freed pages to purge (0.45 s of CPU in these 3 s, measured).
func TestClockJumpBackDoesNotSpin(t *testing.T) {
	faulted(t)
	l := startClocked(t, Spec{Name: "local"})
	// redis-server starts the thread a moment after it answers (0.13 s
	// after the start it was not there yet once, under make test).
	for deadline := time.Now().Add(5 * time.Second); threadCPU(t, l, "master", "jemalloc_bg_thd") < 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server has no jemalloc_bg_thd thread 5 s after it started: this test needs Debian's jemalloc build with jemalloc-bg-thread yes")
		}
	}
	if err := l.ClockJump(t.Context(), "master", -10*time.Second); err != nil {
		t.Fatal(err)
	}
	a, err := dialAdmin(addrOf(t, l, "master"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	value := strings.Repeat("x", 10_000)
	for i := range 3000 {
		if err := a.exec(t.Context(), "SET", "k"+strconv.Itoa(i), value); err != nil {
			t.Fatal(err)
		}
	}
	before := threadCPU(t, l, "master", "jemalloc_bg_thd")
	if err := a.exec(t.Context(), "FLUSHALL", "SYNC"); err != nil { // 30 MB to purge
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	used := threadCPU(t, l, "master", "jemalloc_bg_thd") - before
	if used > 20 {
		t.Errorf("jemalloc's background thread used %d ticks in 3 s with the clock 10 s back; want it asleep (a few at most)", used)
	}
	t.Logf("jemalloc's background thread: %d ticks in 3 s", used)
}

// Sentinels run under the shim too, and a jump of more than 2 s puts one
// into TILT mode: Sentinel's own guard against clock steps.
func TestClockJumpTiltsSentinel(t *testing.T) {
	faulted(t)
	l := startClocked(t, Spec{Name: "local:sentinel?replicas=1&sentinels=1"})
	addr := addrOf(t, l, "sentinel-1")
	tilt := func() string {
		info, err := do(t, addr, "INFO", "sentinel").ToString()
		if err != nil {
			t.Fatal(err)
		}
		v, _ := redisinfo.Field(info, "sentinel", "sentinel_tilt")
		return v
	}
	if got := tilt(); got != "0" {
		t.Fatalf("sentinel_tilt = %q before any jump; want 0", got)
	}
	if err := l.ClockJump(t.Context(), "sentinel-1", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the sentinel to enter TILT mode", func() error {
		if got := tilt(); got != "1" {
			return errors.New("sentinel_tilt " + got)
		}
		return nil
	})
}
