package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// Two runs of one --run-id against one server: the second is refused
// (exit 2, one line naming --run-id) before it touches a key, the first
// goes on unharmed (no lease lost, no overlap), and its record is not
// replaced by a later run of the id without --overwrite.
func TestOneRunPerRunID(t *testing.T) {
	ep := topotest.Endpoint(t)
	target := "redis://" + ep.Addr
	dir := t.TempDir()
	runID := fmt.Sprintf("twice-%d", time.Now().UnixNano())
	first := filepath.Join(dir, "first.json")
	load := []string{"run", "--target", target, "--variants", "lua-release", "--clients", "4", "--keys", "1",
		"--warmup", "0", "--quiet", "--run-id", runID}
	type result struct {
		stderr string
		status int
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, status := runCLI(t, append(load, "--duration", "3s", "--out", first)...)
		done <- result{stderr, status}
	}()
	conn, err := clients.New(context.Background(), ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	claim := runner.KeyPrefix(runID) + "claim"
	exists := func() bool {
		n, err := conn.Do(context.Background(), variants.Cmd("EXISTS", claim))
		return err == nil && n == int64(1)
	}
	for deadline := time.Now().Add(10 * time.Second); !exists(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first run never claimed %s", claim)
		}
	}
	time.Sleep(300 * time.Millisecond) // well into the measured phase

	second := filepath.Join(dir, "second.json")
	began := time.Now()
	stdout, stderr, status := runCLI(t, append(load, "--duration", "1s", "--out", second)...)
	if status != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--run-id") || !strings.Contains(stderr, runID) || stdout != "" {
		t.Errorf("the second run of the id: exit %d, stdout %q, stderr %q; want exit 2 and one line naming --run-id", status, stdout, stderr)
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("the second run took %v to be refused", took)
	}
	if _, err := os.Stat(second); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote a record: %v", err)
	}

	r := <-done
	if r.status != exitOK {
		t.Fatalf("the first run: exit %d: %s", r.status, r.stderr)
	}
	rec, err := record.Load(first)
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	if c.Acquisitions == 0 || c.Violations.LeaseLost != 0 || c.Violations.Overlaps != 0 || c.Errors != 0 {
		t.Errorf("the first run was harmed: %d acquisitions, lease_lost %d, overlaps %d, errors %d",
			c.Acquisitions, c.Violations.LeaseLost, c.Violations.Overlaps, c.Errors)
	}
	if exists() {
		t.Error("the claim outlived the run")
	}
	if keys, err := runner.DeleteKeys(context.Background(), conn, runner.KeyPrefix(runID)); err != nil || keys != 0 {
		t.Errorf("%d keys of the run left: %v", keys, err)
	}

	// The id is free again, but its record at --out is not replaced
	// without --overwrite.
	before, _ := os.ReadFile(first)
	_, stderr, status = runCLI(t, append(load, "--duration", "300ms", "--out", first)...)
	if status != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--overwrite") || !strings.Contains(stderr, first) {
		t.Errorf("a record of the id at --out: exit %d, stderr %q; want exit 2 naming --overwrite", status, stderr)
	}
	if after, _ := os.ReadFile(first); string(after) != string(before) {
		t.Error("the refused run changed the record")
	}
	if _, stderr, status = runCLI(t, append(load, "--duration", "300ms", "--out", first, "--overwrite")...); status != exitOK {
		t.Errorf("with --overwrite: exit %d: %s", status, stderr)
	}
	if after, _ := os.ReadFile(first); string(after) == string(before) {
		t.Error("--overwrite did not replace the record")
	}
}
