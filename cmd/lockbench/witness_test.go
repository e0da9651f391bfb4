package main

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// shardRun is one lockbench process running a shard of a witnessed run.
type shardRun struct {
	cmd    *exec.Cmd
	out    string
	stderr strings.Builder
	cells  chan struct{} // a line per cell started
	done   chan error
}

// startShard starts shard i of n of run runID against target, checked by
// the witness at wit, with the extra run flags args.
func startShard(t *testing.T, bin, dir, runID string, i, n int, target, wit topologies.Endpoint, args ...string) *shardRun {
	t.Helper()
	s := &shardRun{out: filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)), cells: make(chan struct{}, 16), done: make(chan error, 1)}
	s.cmd = exec.Command(bin, append([]string{"run", "--target", "redis://" + target.Addr, "--witness", "redis://" + wit.Addr,
		"--run-id", runID, "--shard", fmt.Sprintf("%d/%d", i, n), "--warmup", "0", "--quiet", "--out", s.out}, args...)...)
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.stderr.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "lockbench: [") {
				s.cells <- struct{}{}
			}
		}
		s.done <- s.cmd.Wait()
	}()
	return s
}

// wait waits for the shard's exit and returns its status.
func (s *shardRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		if exit, ok := err.(*exec.ExitError); ok {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return exitOK
	case <-time.After(60 * time.Second):
		t.Fatalf("shard did not finish within 60s; stderr:\n%s", s.stderr.String())
		return -1
	}
}

// Three lockbench processes run as shards of one run against one Redis,
// checked by one witness, and merge into the whole. With one client per
// shard, none's overlaps can only be between processes: the witness must
// see them; lua-release must show none. The shards meet at the witness
// (the late third holds the others), leave their records there for merge,
// and the last one removes the run's keys.
func TestWitnessedShards(t *testing.T) {
	bin := buildBinary(t)
	target, wit := topotest.Endpoint(t), topotest.Endpoint(t)
	dir := t.TempDir()
	runID := fmt.Sprintf("witness-test-%d", time.Now().UnixNano())
	const n = 3
	var shards []*shardRun
	for i := 1; i <= n; i++ {
		if i == n {
			time.Sleep(1500 * time.Millisecond) // the others wait for it
		}
		shards = append(shards, startShard(t, bin, dir, runID, i, n, target, wit,
			"--variants", "none,lua-release", "--clients", "3", "--duration", "1s"))
	}
	var recs []*record.Record
	for i, s := range shards {
		if status := s.wait(t); status != exitOK {
			t.Fatalf("shard %d: exit %d:\n%s", i+1, status, s.stderr.String())
		}
		rec, err := record.Load(s.out)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		for _, c := range rec.Cells {
			if c.Clients != 1 || c.Acquisitions == 0 || c.Witness == nil || c.Witness.Done < 1 || len(c.Witness.Absent) > 0 {
				t.Errorf("shard %d, %s: %d clients, %d acquisitions, witness %+v", i+1, c.Variant, c.Clients, c.Acquisitions, c.Witness)
			}
		}
	}
	finished := make([]time.Time, len(recs))
	for i, r := range recs {
		finished[i] = r.Finished
	}
	first, last := slices.MinFunc(finished, time.Time.Compare), slices.MaxFunc(finished, time.Time.Compare)
	if spread := last.Sub(first); spread > time.Second {
		t.Errorf("the shards finished %v apart, though the late one started 1.5s after the others: they did not start together", spread)
	}

	merged := filepath.Join(dir, "merged.json")
	stdout, stderr, status := runCLI(t, "merge", "--witness", "redis://"+wit.Addr, "--run-id", runID, "-o", merged)
	if status != exitOK || strings.Contains(stderr, "missing") {
		t.Fatalf("merge from the witness: exit %d: %s", status, stderr)
	}
	if !strings.Contains(stdout, "every shard's together, from the witness") {
		t.Errorf("the merged table does not say its overlaps come from the witness:\n%s", stdout)
	}
	rec, err := record.Load(merged)
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range rec.Cells {
		var sum int64
		for _, r := range recs {
			sum += r.Cells[j].Acquisitions
		}
		v := c.Violations
		switch {
		case c.Acquisitions != sum || c.Clients != n:
			t.Errorf("merged %s: %d acquisitions of %d clients, want the shards' sum %d of %d", c.Variant, c.Acquisitions, c.Clients, sum, n)
		case c.Witness == nil || c.Witness.Done != n:
			t.Errorf("merged %s: witness %+v, want the figures read after all %d shards were done", c.Variant, c.Witness, n)
		case c.Variant == "none" && (v.Overlaps == 0 || v.MaxOccupancy < 2):
			t.Errorf("merged none: %d overlaps, occupancy %d: the witness saw no overlap between 3 processes on one lock", v.Overlaps, v.MaxOccupancy)
		case c.Variant == "lua-release" && (v.Overlaps != 0 || v.LostUpdates != 0 || v.CriticalSections < c.Acquisitions):
			t.Errorf("merged lua-release: %d overlaps, %d lost updates, %d critical sections of %d acquisitions", v.Overlaps, v.LostUpdates, v.CriticalSections, c.Acquisitions)
		}
	}

	conn, err := clients.New(context.Background(), target, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if left, err := runner.DeleteKeys(context.Background(), conn, runner.KeyPrefix(runID)); err != nil || left != 0 {
		t.Errorf("%d keys of the run left on the Redis under test (%v): the last shard to finish removes them", left, err)
	}
}

// A shard killed mid-run leaves the other shards' records valid; the merge
// from the witness names it missing.
func TestWitnessedShardDies(t *testing.T) {
	topotest.Faulted(t)
	bin := buildBinary(t)
	target, wit := topotest.Endpoint(t), topotest.Endpoint(t)
	dir := t.TempDir()
	runID := fmt.Sprintf("witness-dies-%d", time.Now().UnixNano())
	var shards []*shardRun
	for i := 1; i <= 3; i++ {
		shards = append(shards, startShard(t, bin, dir, runID, i, 3, target, wit,
			"--variants", "lua-release", "--clients", "6", "--duration", "3s"))
	}
	select {
	case <-shards[2].cells:
	case <-time.After(30 * time.Second):
		t.Fatalf("shard 3 did not start its cell:\n%s", shards[2].stderr.String())
	}
	time.Sleep(time.Second)
	if err := shards[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	shards[2].wait(t)
	for i, s := range shards[:2] {
		if status := s.wait(t); status != exitOK {
			t.Fatalf("shard %d: exit %d:\n%s", i+1, status, s.stderr.String())
		}
		if rec, err := record.Load(s.out); err != nil || rec.Cells[0].Acquisitions == 0 {
			t.Errorf("shard %d's record: %v", i+1, err)
		}
	}
	merged := filepath.Join(dir, "merged.json")
	_, stderr, status := runCLI(t, "merge", "--witness", "redis://"+wit.Addr, "--run-id", runID, "-o", merged)
	if status != exitOK || !strings.Contains(stderr, "shard 3/3 missing: figures cover 2 of 3 shards") {
		t.Fatalf("merge without shard 3: exit %d: %s", status, stderr)
	}
	if rec, err := record.Load(merged); err != nil || len(rec.MissingShards) != 1 || rec.Cells[0].Clients != 4 {
		t.Errorf("merged: %v, %+v", err, rec)
	}
}

// A witness that is the Redis under test, under another name too, is
// refused in one line with exit status 2, before anything runs.
func TestWitnessIsTarget(t *testing.T) {
	target := topotest.Endpoint(t)
	_, port, _ := strings.Cut(target.Addr, ":")
	for _, w := range []string{target.Addr, "localhost:" + port} {
		out := filepath.Join(t.TempDir(), "run.json")
		stdout, stderr, status := runCLI(t, "run", "--target", "redis://"+target.Addr, "--witness", "redis://"+w,
			"--variants", "none", "--duration", "1s", "--out", out)
		if status != exitUsage || !strings.Contains(stderr, "witness") || !strings.Contains(stderr, "under test") ||
			strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("--witness %s, the target: exit %d, stderr %q", w, status, stderr)
		}
	}
}
