package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
)

// Every output path — run's --out, --report and --hlog, sweep's, report's
// and merge's -o — is checked before any load: a directory that is
// missing, read-only or a file fails at once with exit status 2 and one
// line naming the flag; no topology starts (no redis-server directory is
// made) and no directory is created.
func TestOutputsCheckedBeforeTheLoad(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where a started redis-server's directory would go
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := "/proc" // even root cannot create a file there
	if os.Geteuid() != 0 {
		readOnly = filepath.Join(dir, "read-only")
		if err := os.Mkdir(readOnly, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing", "deeper")
	good, err := filepath.Abs(filepath.Join("..", "..", "results", "baselines", "regress.json"))
	if err != nil {
		t.Fatal(err)
	}
	load := []string{"--variants", "lua-release", "--clients", "2", "--duration", "1s", "--warmup", "0"}
	okOut := filepath.Join(dir, "ok.json")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"run --out missing dir", append([]string{"run", "--out", filepath.Join(missing, "x.json")}, load...), []string{"--out", "does not exist"}},
		{"run --out read-only dir", append([]string{"run", "--out", filepath.Join(readOnly, "x.json")}, load...), []string{"--out", readOnly}},
		{"run --out under a file", append([]string{"run", "--out", filepath.Join(file, "x.json")}, load...), []string{"--out", "not a directory"}},
		{"run --report missing dir", append([]string{"run", "--out", okOut, "--report", filepath.Join(missing, "r.html")}, load...), []string{"--report", "does not exist"}},
		{"run --hlog missing parent", append([]string{"run", "--out", okOut, "--hlog", filepath.Join(missing, "logs")}, load...), []string{"--hlog", "does not exist"}},
		{"run --hlog a file", append([]string{"run", "--out", okOut, "--hlog", file}, load...), []string{"--hlog", "not a directory"}},
		{"sweep --out missing dir", append([]string{"sweep", "--out", filepath.Join(missing, "x.json")}, load...), []string{"--out", "does not exist"}},
		{"sweep --report read-only", append([]string{"sweep", "--out", okOut, "--report", filepath.Join(readOnly, "r.html")}, load...), []string{"--report", readOnly}},
		{"report -o missing dir", []string{"report", good, "-o", filepath.Join(missing, "r.html")}, []string{"--out", "does not exist"}},
		{"merge -o missing dir", []string{"merge", good, good, "-o", filepath.Join(missing, "m.json")}, []string{"--out", "does not exist"}},
		{"findings --out missing dir", []string{"findings", "--scenarios", "ticket-sale", "--out", filepath.Join(missing, "f.md")}, []string{"--out", "does not exist"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			began := time.Now()
			stdout, stderr, status := runCLI(t, tc.args...)
			took := time.Since(began)
			if status != exitUsage || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line", status, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not name %q", stderr, w)
				}
			}
			if took > time.Second {
				t.Errorf("refused after %v: the load ran first", took)
			}
			if started := nodeDirs(t, tmp); len(started) > 0 {
				t.Errorf("a redis-server was started before the refusal: %v", started)
			}
			if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
				t.Errorf("the missing directory was created: %v", err)
			}
			if _, err := os.Stat(okOut); !os.IsNotExist(err) {
				t.Errorf("a record was written: %v", err)
			}
		})
	}
	// A --hlog directory lockbench may create: one level in a parent that
	// exists.
	logs := filepath.Join(dir, "logs")
	if _, stderr, status := runCLI(t, append([]string{"run", "--quiet", "--out", okOut, "--hlog", logs}, load[:6]...)...); status != exitOK {
		t.Fatalf("--hlog in a parent that exists: exit %d: %s", status, stderr)
	}
	if entries, err := os.ReadDir(logs); err != nil || len(entries) == 0 {
		t.Errorf("--hlog %s: %v, %d files", logs, err, len(entries))
	}
}

// A record that cannot be written after the load (its directory went
// during the run, a file took its place) is not lost: the table is
// printed first, the record goes to a file in the temp directory, and the
// last line of stderr names that file. The exit status is 3.
func TestRecordKeptWhenSavingFails(t *testing.T) {
	t.Parallel() // a process of its own, with its own TMPDIR
	bin := buildBinary(t)
	tmp := t.TempDir()
	dir := filepath.Join(t.TempDir(), "runs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run.json")
	p := startLockbench(t, bin, tmp, "run", "--variants", "lua-release", "--clients", "4", "--duration", "2s", "--warmup", "0",
		"--out", out, "--report", filepath.Join(dir, "run.html"))
	p.waitLine(t, "[1/", 15*time.Second)
	// The directory checked at the start goes; a file takes its name.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("in the way\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status := p.wait(t, 20*time.Second)
	if status != exitRunFailed {
		t.Errorf("exit %d, want %d\n%s", status, exitRunFailed, p.stderr())
	}
	if !strings.Contains(p.stdout.String(), "lua-release") {
		t.Errorf("the table was not printed:\n%s", p.stdout.String())
	}
	last := p.lastLine()
	fallbacks, _ := filepath.Glob(filepath.Join(tmp, "lockbench-*.json"))
	if len(fallbacks) != 1 {
		t.Fatalf("fallback files in the temp dir: %v; stderr:\n%s", fallbacks, p.stderr())
	}
	if !strings.Contains(last, fallbacks[0]) || !strings.Contains(last, out) {
		t.Errorf("the last line does not name the fallback %s and the --out it replaces: %q", fallbacks[0], last)
	}
	rec, err := record.Load(fallbacks[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Cells) != 1 || rec.Cells[0].Acquisitions == 0 {
		t.Errorf("the fallback record: %d cells, want the one measured", len(rec.Cells))
	}
	if !strings.Contains(p.stderr(), "--report") {
		t.Errorf("the failed --report is not said:\n%s", p.stderr())
	}
}
