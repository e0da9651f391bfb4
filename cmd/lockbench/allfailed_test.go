package main

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// A run against a server out of memory (maxmemory, noeviction) acquires
// nothing and meets only errors: it saves its record, names the errors in
// the table's notes and its last line, and exits with status 3.
func TestEveryCellFailedOutOfMemory(t *testing.T) {
	ep := topotest.Endpoint(t)
	ctx := context.Background()
	c, err := clients.New(ctx, ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, set := range [][]string{{"maxmemory-policy", "noeviction"}, {"maxmemory", "1mb"}} {
		if _, err := c.Do(ctx, variants.Bare("CONFIG", "SET", set[0], set[1])); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; ; i++ {
		_, err := c.Do(ctx, variants.Cmd("SET", "fill:"+strconv.Itoa(i), strings.Repeat("x", 4096)))
		if err != nil && strings.Contains(err.Error(), "OOM") {
			break
		}
		if err != nil || i == 100_000 {
			t.Fatalf("filling the server: %d keys, %v", i, err)
		}
	}
	if _, err := c.Do(ctx, variants.Bare("CONFIG", "SET", "maxmemory", "512kb")); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "run.json")
	stdout, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--variants", "lua-release",
		"--clients", "4", "--duration", "500ms", "--warmup", "0", "--quiet", "--out", out)
	if status != exitRunFailed {
		t.Errorf("exit %d, want %d (stderr %q)", status, exitRunFailed, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "lockbench: run failed: every cell failed: ") ||
		!strings.Contains(last, "errors, most OOM (OOM command not allowed") || !strings.Contains(last, out) {
		t.Errorf("the last line does not say every cell failed, of OOM, and where the record is: %q", last)
	}
	if !strings.Contains(stdout, " OOM (OOM command not allowed") {
		t.Errorf("the table's notes do not name the OOM errors:\n%s", stdout)
	}
	rec, err := record.Load(out)
	if err != nil {
		t.Fatalf("the record: %v", err)
	}
	if cell := rec.Cells[0]; cell.ErrorsByKind["OOM"].Count != cell.Errors || cell.Errors == 0 || cell.Fairness.Defined() {
		t.Errorf("record: %d errors, by kind %+v, Jain %v; want all OOM and Jain undefined", cell.Errors, cell.ErrorsByKind, cell.Fairness.Jain)
	}
}
