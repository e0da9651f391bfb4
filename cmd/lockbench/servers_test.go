package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Without valkey-server on PATH, --server valkey (and --servers with it)
// is refused before anything starts: exit 2, one line naming the flag and
// what to install. (Not parallel: it changes PATH.)
func TestServerValkeyMissing(t *testing.T) {
	bin := t.TempDir()
	if redis, err := exec.LookPath("redis-server"); err == nil {
		if err := os.Symlink(redis, filepath.Join(bin, "redis-server")); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	for _, args := range [][]string{
		{"run", "--server", "valkey"},
		{"run", "--servers", "redis,valkey", "--variants", "set-nx-ex,lua-release"},
		{"sweep", "--server", "valkey"},
	} {
		out := filepath.Join(t.TempDir(), "run.json")
		stdout, stderr, status := runCLI(t, append(args, "--out", out)...)
		line := strings.TrimSpace(stderr)
		if status != exitUsage || strings.Contains(line, "\n") || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and one line", args, status, stdout, stderr, exitUsage)
		}
		for _, want := range []string{args[1], "valkey-server not found", "install it", "bookworm-backports"} {
			if !strings.Contains(line, want) {
				t.Errorf("%q: %q lacks %q", args, line, want)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q wrote %s", args, out)
		}
	}
}
