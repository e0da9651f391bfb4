package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// forbidden are the commands lockbench never sends to a server it did not
// start: they would flush, reconfigure, stop or disrupt it for everyone.
var forbidden = []string{"FLUSHALL", "FLUSHDB", "CONFIG", "DEBUG", "SHUTDOWN", "CLIENT KILL", "CLIENT PAUSE",
	"KEYS", "SWAPDB", "SCRIPT FLUSH", "FUNCTION FLUSH", "FAILOVER", "REPLICAOF", "SLAVEOF", "MIGRATE"}

// A server lockbench did not start, holding 1,000 keys of others of every
// type, goes through every variant and every scenario allowed on such a
// server. Its MONITOR shows every command lockbench sent (those inside its
// scripts too): none is forbidden, none names a key outside lockbench's own
// prefix; afterwards the foreign keys are unchanged (type, value, expiry)
// and no lockbench key is left.
func TestForeignServerUntouched(t *testing.T) {
	// What its runs send is checked, not how fast, on a server of its own.
	t.Parallel()
	ep := topotest.Endpoint(t) // to lockbench, a --target it did not start
	ctx := context.Background()
	conn, err := clients.New(ctx, ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	do := func(argv ...string) any {
		t.Helper()
		reply, err := conn.Do(ctx, variants.Bare(argv...))
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		return reply
	}
	type foreign struct{ key, dump string }
	var keys []foreign
	for i := range 1000 {
		key := fmt.Sprintf("foreign:%d", i)
		switch i % 6 {
		case 0:
			do("SET", key, fmt.Sprint("value-", i))
		case 1:
			do("HSET", key, "a", "1", "b", fmt.Sprint(i))
		case 2:
			do("RPUSH", key, "x", "y", fmt.Sprint(i))
		case 3:
			do("SADD", key, "m", fmt.Sprint(i))
		case 4:
			do("ZADD", key, "1", "m", fmt.Sprint(i), "n")
		case 5:
			do("XADD", key, "*", "field", fmt.Sprint(i))
		}
		if i%10 == 0 {
			do("EXPIRE", key, "3600")
		}
	}
	// lockbench's own names, but not under a run's prefix, are not its.
	do("SET", "lockbench:not-a-run", "foreign")
	for i := range 1000 {
		key := fmt.Sprintf("foreign:%d", i)
		keys = append(keys, foreign{key, do("DUMP", key).(string)})
	}

	stop := monitor(t, ep.Addr)
	target := "redis://" + ep.Addr
	dir := t.TempDir()
	// What a cell without faults sends shows in its first acquisitions:
	// it stops after 200 (its duration only a cap).
	runs := [][]string{
		{"--variants", strings.Join(lockVariants(), ","), "--clients", "4", "--ops", "200", "--duration", "300ms", "--warmup", "100ms"},
		{"--variants", "sem-basic,sem-fair,sem-locked", "--limit", "3", "--clients", "6", "--ops", "200", "--duration", "300ms", "--warmup", "0"},
	}
	for _, s := range plan.Scenarios {
		if allowed, why := onForeignServer(s); !allowed {
			t.Logf("scenario %s left out: %s", s.Name, why)
			continue
		}
		args := []string{"--scenario", s.Name, "--variants", strings.Join(s.Variants[:min(2, len(s.Variants))], ",")}
		if len(s.Faults)+len(s.ClockJumps) == 0 {
			args = append(args, "--ops", "200", "--duration", "500ms", "--warmup", "0") // nothing timed to wait for
		} else if over, duration := faultsOver(t, &s); over+time.Second < duration {
			// What lockbench sends during its faults, and for a second
			// after the last (the holders and waiters it freed, a crashed
			// holder's lock expiring), not the rest of the scenario's cell.
			args = append(args, "--duration", (over + time.Second).String())
		}
		runs = append(runs, args)
	}
	// At once, four at a time: what is checked is what they send, not
	// how fast.
	var wg sync.WaitGroup
	slots := make(chan struct{}, 4)
	for i, args := range runs {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			out := filepath.Join(dir, fmt.Sprintf("run-%d.json", i))
			_, stderr, status := runCLI(t, append([]string{"run", "--target", target, "--quiet", "--out", out}, args...)...)
			if status != exitOK {
				t.Errorf("run %v: exit %d: %s", args, status, stderr)
			}
		})
	}
	wg.Wait()
	sent := stop()
	if len(sent) < 1000 {
		t.Fatalf("MONITOR saw only %d commands", len(sent))
	}
	ownKey := regexp.MustCompile(`^lockbench:[A-Za-z0-9._-]+:`)
	bad, own := 0, 0
	for _, cmd := range sent {
		name := strings.ToUpper(cmd[0])
		if len(cmd) > 1 {
			name += " " + strings.ToUpper(cmd[1])
		}
		for _, f := range forbidden {
			if name == f || strings.HasPrefix(name, f+" ") {
				t.Errorf("lockbench sent %v", cmd)
				bad++
			}
		}
		for _, arg := range cmd[1:] {
			if ownKey.MatchString(arg) {
				own++
			}
			if strings.HasPrefix(arg, "foreign:") || arg == "lockbench:not-a-run" ||
				(strings.HasPrefix(arg, "lockbench:") && !ownKey.MatchString(arg)) {
				t.Errorf("lockbench named a key not its own: %v", cmd)
				bad++
			}
		}
		if bad > 10 {
			t.FailNow()
		}
	}
	if own < 1000 {
		t.Errorf("only %d arguments of the %d commands seen name lockbench's keys: is MONITOR parsed?", own, len(sent))
	}
	for _, k := range keys {
		if dump := do("DUMP", k.key); dump != k.dump {
			t.Errorf("%s changed", k.key)
		}
	}
	if n := do("DBSIZE"); n != int64(1001) {
		t.Errorf("%v keys in the server; want the 1,001 it had: lockbench left keys behind", n)
	}
	for i := 0; i < 1000; i += 10 {
		if ttl, _ := do("TTL", fmt.Sprintf("foreign:%d", i)).(int64); ttl < 3000 {
			t.Errorf("foreign:%d: TTL %d, want about 3600", i, ttl)
		}
	}
	if ttl := do("TTL", "foreign:1"); ttl != int64(-1) {
		t.Errorf("foreign:1 got an expiry: TTL %v", ttl)
	}
}

// lockVariants are the registered locks (not semaphores) that run on one
// server with the default client.
func lockVariants() []string {
	var names []string
	for _, info := range variants.All() {
		if info.Kind == variants.KindSemaphore || info.Name == "redlock" || info.Clients != nil && !slices.Contains(info.Clients, "rueidis") {
			continue
		}
		names = append(names, info.Name)
	}
	return names
}

// onForeignServer says whether scenario s may run on a server lockbench
// did not start: not when it starts its own topology or faults its nodes.
func onForeignServer(s plan.Scenario) (bool, string) {
	if s.Topology != "" {
		return false, "runs on " + s.Topology + ", which lockbench starts"
	}
	for _, spec := range s.Faults {
		if f, err := faults.Parse(spec); err != nil || f.Kind.OnNode() {
			return false, "faults a node: " + spec
		}
	}
	return true, ""
}

// faultsOver is when the last of s's faults and clock jumps is over, from
// the start of its measured phase (the time it starts at, plus its for= or
// delay=; a clock jump's time counts the warm-up too: with one, it is over
// earlier still), and the length of s's cells, as plan.Build reads them.
func faultsOver(t *testing.T, s *plan.Scenario) (over, duration time.Duration) {
	t.Helper()
	p, err := plan.Build(s, plan.Overrides{})
	if err != nil {
		t.Fatalf("scenario %s: %v", s.Name, err)
	}
	for _, f := range p.Faults {
		over = max(over, f.At+f.For+f.Delay)
	}
	for _, j := range p.Workload.Clocks.Jumps {
		over = max(over, j.At)
	}
	return over, p.Workload.Duration
}

// monitor records every command the server at addr runs until stop, which
// returns them as argument lists.
func monitor(t *testing.T, addr string) (stop func() [][]string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReaderSize(c, 1<<20)
	if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("MONITOR: %q, %v", line, err)
	}
	var (
		mu   sync.Mutex
		seen [][]string
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if args := monitorArgs(line); args != nil {
				mu.Lock()
				seen = append(seen, args)
				mu.Unlock()
			}
		}
	}()
	return func() [][]string {
		time.Sleep(100 * time.Millisecond) // the last commands' lines
		c.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

// monitorArgs parses a MONITOR line: +<time> [<db> <client>] "ARG" "ARG" ...
func monitorArgs(line string) []string {
	_, rest, ok := strings.Cut(line, "] ")
	if !ok {
		return nil
	}
	var args []string
	for rest = strings.TrimSpace(rest); strings.HasPrefix(rest, `"`); {
		end := 1
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				end++
			}
			end++
		}
		args = append(args, rest[1:min(end, len(rest))])
		rest = strings.TrimSpace(rest[min(end+1, len(rest)):])
	}
	return args
}

// A node fault on a server lockbench did not start is refused, in one line
// naming --allow-destructive; with it, a timed pause goes out as CLIENT
// PAUSE (every client of the server waits: the acquisitions in flight
// stall as long), and a kill is still refused.
func TestDestructiveFaultsNeedTheFlag(t *testing.T) {
	topotest.Faulted(t)
	ep := topotest.Endpoint(t)
	out := filepath.Join(t.TempDir(), "run.json")
	run := func(args ...string) (string, string, int) {
		return runCLI(t, append([]string{"run", "--target", "redis://" + ep.Addr, "--variants", "lua-release", "--clients", "4",
			"--duration", "2s", "--warmup", "0", "--quiet", "--out", out}, args...)...)
	}
	pause := []string{"--fault", "at=500ms pause node=master-1 for=700ms"}
	if _, stderr, status := run(pause...); status != exitUsage || !strings.Contains(stderr, "--allow-destructive") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("a pause without --allow-destructive: exit %d, %q", status, stderr)
	}
	if _, stderr, status := run("--allow-destructive", "--fault", "at=500ms kill node=master-1"); status != exitUsage || !strings.Contains(stderr, "only a pause") {
		t.Errorf("a kill with --allow-destructive: exit %d, %q", status, stderr)
	}
	if _, stderr, status := run("--allow-destructive", "--fault", "at=500ms pause node=master-1"); status != exitUsage || !strings.Contains(stderr, "for=") {
		t.Errorf("an endless pause with --allow-destructive: exit %d, %q", status, stderr)
	}
	_, stderr, status := run(append(pause, "--allow-destructive")...)
	if status != exitOK {
		t.Fatalf("a timed pause with --allow-destructive: exit %d: %s", status, stderr)
	}
	rec, err := record.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	var what []string
	for _, e := range c.Faults {
		what = append(what, e.Action)
	}
	if !slices.Equal(what, []string{"pause", "resume"}) || !rec.Config.AllowDestructive {
		t.Errorf("fault events %v, allow_destructive %v; want pause, resume, true", what, rec.Config.AllowDestructive)
	}
	if c.AcquireLatencyUS.Max < 500_000 {
		t.Errorf("acquire max %.0fµs: the 700ms CLIENT PAUSE did not stall the server", c.AcquireLatencyUS.Max)
	}
}
