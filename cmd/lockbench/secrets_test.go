package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

// The password of a server under test reaches the server and nothing else:
// not the process list, the output, the progress lines, the record, the
// HTML report, the interval logs, nor the error of a wrong password. It is
// read from the environment or a file; a URL with a password is refused.
func TestPasswordNeverShows(t *testing.T) {
	t.Parallel() // runs of 1 s, each a process of its own
	const secret = "s3cret-Pw-4711"
	bin := buildBinary(t)
	ep := topotest.Endpoint(t)
	conn, err := clients.New(context.Background(), ep, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The test's own server: it may reconfigure it.
	if _, err := conn.Do(context.Background(), variants.Bare("CONFIG", "SET", "requirepass", secret)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	dir := t.TempDir()
	passwordFile := filepath.Join(dir, "password")
	if err := os.WriteFile(passwordFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// lockbench runs with args and env; it returns the exit status and
	// everything it showed: stdout, stderr, its command line while it
	// ran, and every file it wrote under out.
	runBin := func(t *testing.T, env []string, out string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cmdline")
		err := cmd.Wait()
		status := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			status = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		shown := stdout.String() + stderr.String() + string(cmdline)
		_ = filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(path)
				shown += string(data)
			}
			return nil
		})
		return status, shown
	}
	target := "redis://" + ep.Addr
	for _, tc := range []struct {
		name   string
		env    []string
		args   []string
		status int
	}{
		{"environment", []string{topologies.PasswordEnv + "=" + secret}, nil, exitOK},
		{"file", nil, []string{"--password-file", passwordFile}, exitOK},
		{"wrong password", []string{topologies.PasswordEnv + "=" + secret + "-wrong"}, nil, exitUsage},
		{"none", []string{topologies.PasswordEnv + "="}, nil, exitUsage},
		{"in the URL", nil, []string{"--target", "redis://default:" + secret + "@" + ep.Addr}, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // its own run id and output directory
			out := filepath.Join(dir, tc.name)
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			// Two cells of 500 ms: the process still runs when its command
			// line is read, 300 ms after its start, and writes an interval
			// log per cell (its header names the target) however short.
			args := []string{"run", "--variants", "lua-release,redsync", "--clients", "4", "--duration", "500ms", "--warmup", "0",
				"--out", filepath.Join(out, "run.json"), "--report", filepath.Join(out, "run.html"), "--hlog", filepath.Join(out, "hlog")}
			if !strings.Contains(strings.Join(tc.args, " "), "--target") {
				args = append(args, "--target", target)
			}
			status, shown := runBin(t, tc.env, out, append(args, tc.args...)...)
			if status != tc.status {
				t.Errorf("exit %d, want %d:\n%s", status, tc.status, shown)
			}
			if tc.status == exitOK && !strings.Contains(shown, `"acquisitions"`) {
				t.Errorf("no record written:\n%s", shown)
			}
			if i := strings.Index(shown, secret); i >= 0 {
				t.Errorf("the password shows: …%s…", shown[max(i-200, 0):min(i+100, len(shown))])
			}
		})
	}
}
