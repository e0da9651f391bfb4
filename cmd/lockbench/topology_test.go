package main

import (
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
)

var useLine = regexp.MustCompile(`use it with: lockbench run (.*)`)

// topology up starts a topology that stays up, on Redis or (--server) on
// Valkey, and says which; run reaches it through the flags up printed (an
// external cluster, sentinels, independent targets); topology down stops
// it.
func TestTopologyUpRunDown(t *testing.T) {
	t.Parallel() // exit statuses and a run's counts on topologies of its own: beside the other parallel tests.
	for _, tc := range []struct{ name, variants, client, server string }{
		{"local:cluster?masters=3", "lua-release,sem-locked", "go-redis", topologies.ServerRedis},
		{"local:sentinel?replicas=1&sentinels=3", "watchdog", "rueidis", topologies.ServerValkey},
		{"local:redlock?nodes=3", "redlock", "rueidis", topologies.ServerRedis},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topotest.NeedServer(t, tc.server)
			state := filepath.Join(t.TempDir(), "topology.json")
			stdout, stderr, status := runCLI(t, "topology", "up", tc.name, "--server", tc.server, "--state", state)
			if status != exitOK {
				t.Fatalf("up: status %d: %s", status, stderr)
			}
			if !strings.Contains(stdout, "("+tc.server+" ") {
				t.Errorf("up did not say it runs %s:\n%s", tc.server, stdout)
			}
			t.Cleanup(func() { runCLI(t, "topology", "down", "--state", state) })
			m := useLine.FindStringSubmatch(stdout)
			if m == nil {
				t.Fatalf("up printed no run flags:\n%s", stdout)
			}
			if _, stderr, status := runCLI(t, "topology", "up", tc.name, "--state", state); status != exitUsage || !strings.Contains(stderr, "already up") {
				t.Errorf("a second up: status %d, %q", status, stderr)
			}

			out := filepath.Join(t.TempDir(), "run.json")
			args := append([]string{"run"}, strings.Fields(m[1])...)
			args = append(args, "--variants", tc.variants, "--client", tc.client, "--clients", "4", "--keys", "8",
				"--duration", "300ms", "--warmup", "0", "--out", out)
			if _, stderr, status := runCLI(t, args...); status != exitOK {
				t.Fatalf("run %v: status %d: %s", args, status, stderr)
			}
			rec, err := record.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rec.Cells {
				if c.Acquisitions == 0 || c.Errors != 0 || c.Violations.Overlaps != 0 {
					t.Errorf("%s: %d acquisitions, %d errors, %d overlaps", c.Variant, c.Acquisitions, c.Errors, c.Violations.Overlaps)
				}
				if !strings.HasPrefix(c.Product, tc.server+" ") {
					t.Errorf("%s ran on %q; want %s", c.Variant, c.Product, tc.server)
				}
			}

			stdout, stderr, status = runCLI(t, "topology", "down", "--state", state)
			if status != exitOK || !strings.Contains(stdout, "stopped") {
				t.Fatalf("down: status %d: %s %s", status, stdout, stderr)
			}
			for _, addr := range regexp.MustCompile(`127\.0\.0\.1:\d+`).FindAllString(m[1], -1) {
				if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
					c.Close()
					t.Errorf("%s still answers after topology down", addr)
				}
			}
		})
	}
}
