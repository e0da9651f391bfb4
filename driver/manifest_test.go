package driver_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/variants"
)

// writeManifest writes dir/folder/driver.json.
func writeManifest(t *testing.T, dir, folder, text string) string {
	t.Helper()
	path := filepath.Join(dir, folder, driver.ManifestFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every folder's manifest is read, its entries sorted by name and run in
// their folder; specs join them and replace one of their name.
func TestLoadAndKnown(t *testing.T) {
	dir := t.TempDir()
	writeManifest(t, dir, "py", `[{"name":"redis-py","library":"redis-py","language":"python","command":["python3","driver.py"],
		"requires":"apt-get install -y python3-redis"},{"name":"redis-py-async","command":["python3","driver.py","--async"]}]`)
	writeManifest(t, dir, "node", `[{"name":"node-redlock","command":["node","driver.js"]}]`)
	ms, err := driver.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if strings.Join(names, " ") != "node-redlock redis-py redis-py-async" {
		t.Fatalf("names %v", names)
	}
	if want, _ := filepath.Abs(filepath.Join(dir, "py")); ms[1].Dir != want || ms[1].Requires == "" || ms[1].Library != "redis-py" {
		t.Errorf("redis-py: %+v, want its folder %s as Dir", ms[1], want)
	}
	known, err := driver.Known(dir, []string{"redis-py=/opt/mine --fast", "extra=./x"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := driver.Find(known, "redis-py")
	if err != nil || strings.Join(m.Command, " ") != "/opt/mine --fast" || m.From != "" {
		t.Errorf("a spec replaces the manifest of its name: %+v, %v", m, err)
	}
	if len(known) != 4 {
		t.Errorf("%d known, want 4", len(known))
	}
	m, err = driver.Find(known, "./bin/mydriver --flag")
	if err != nil || m.Name != "mydriver" || len(m.Command) != 2 {
		t.Errorf("a command line: %+v, %v", m, err)
	}
	_, err = driver.Find(known, "redsi-py")
	if !errors.Is(err, driver.ErrBadDriver) || !strings.Contains(err.Error(), "known: extra, node-redlock, redis-py, redis-py-async") {
		t.Errorf("unknown name: %v", err)
	}
	if ms, err := driver.Load(filepath.Join(dir, "none")); err != nil || len(ms) != 0 {
		t.Errorf("a folder that does not exist: %v, %v", ms, err)
	}
}

// Bad manifests and specs are bad drivers, naming the file or the flag.
func TestBadManifests(t *testing.T) {
	for name, text := range map[string]string{
		"not JSON":   `{"name":`,
		"no command": `[{"name":"x"}]`,
		"bad name":   `[{"name":"a,b","command":["x"]}]`,
		"twice":      `[{"name":"x","command":["x"]},{"name":"x","command":["y"]}]`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeManifest(t, dir, "d", text)
			_, err := driver.Load(dir)
			if !errors.Is(err, driver.ErrBadDriver) || !strings.Contains(err.Error(), path) {
				t.Errorf("%v: want a bad driver naming %s", err, path)
			}
		})
	}
	for _, spec := range []string{"noequals", "=cmd", "name=", "a b=cmd"} {
		if _, err := driver.ParseSpec(spec); !errors.Is(err, driver.ErrBadDriver) || !strings.Contains(err.Error(), "--driver") {
			t.Errorf("ParseSpec(%q): %v", spec, err)
		}
	}
}

// A crates package loads, and knows its driver's folder: the Cargo
// project an installed version is built from.
func TestCratesPackage(t *testing.T) {
	dir := t.TempDir()
	writeManifest(t, dir, "rs", `[{"name":"rs","command":["{env}/target/release/rs"],
	  "package":{"registry":"crates","name":"rslock","version":"0.10.0","supports":">=0.5.0"}}]`)
	ms, err := driver.Load(dir)
	if err != nil || len(ms) != 1 {
		t.Fatalf("load: %v, %d drivers", err, len(ms))
	}
	folder := filepath.Join(dir, "rs")
	if ms[0].Package.Dir != folder || ms[0].Command[0] != folder+"/target/release/rs" {
		t.Errorf("package dir %q, command %v; want both in %s", ms[0].Package.Dir, ms[0].Command, folder)
	}
}

// $LOCKBENCH_DRIVERS says where the drivers are.
func TestDefaultDir(t *testing.T) {
	t.Setenv(driver.DirEnv, "/somewhere/drivers")
	if got := driver.DefaultDir(); got != "/somewhere/drivers" {
		t.Errorf("DefaultDir() = %q with %s set", got, driver.DirEnv)
	}
}

// The list says of each driver whether its command runs here, and what a
// driver that does not needs.
func TestWriteList(t *testing.T) {
	var b strings.Builder
	err := driver.WriteList(&b, []driver.Manifest{
		{Name: "here", Library: "sh", Language: "shell", Command: []string{"sh", "-c", "true"}},
		{Name: "missing", Command: []string{"./nowhere"}, Dir: t.TempDir(), Requires: "make nowhere"},
		{Name: "versioned", Command: []string{"sh"}, Package: &driver.Package{Registry: "pypi", Name: "redis", Version: "8.1.0"}},
	}, func(*driver.Package) []string { return []string{"7.4.0", "8.1.0", "8.2.0"} })
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME") ||
		!strings.Contains(lines[1], "yes") || !strings.Contains(lines[1], "sh -c true") ||
		!strings.Contains(lines[2], "no: make nowhere") || !strings.Contains(lines[2], "-") ||
		!strings.Contains(lines[3], "8.1.0 (pinned), 7.4.0, 8.2.0") {
		t.Errorf("list:\n%s", b.String())
	}
}

// A manifest's no_default_ttl gives its library lockbench's default TTL
// when the run gives none; a run's TTL always wins; another library
// keeps its own (0). The repository's Redlock drivers say they have none.
func TestLeaseTTL(t *testing.T) {
	dir := t.TempDir()
	writeManifest(t, dir, "redlock",
		`[{"name":"redlock","command":["./d"],"no_default_ttl":true},{"name":"own","command":["./d"]}]`)
	ms, err := driver.Load(dir)
	if err != nil || len(ms) != 2 {
		t.Fatalf("load: %v, %d drivers", err, len(ms))
	}
	own, redlock := ms[0], ms[1]
	for _, tc := range []struct {
		m        driver.Manifest
		ttl, got time.Duration
	}{
		{redlock, 0, variants.DefaultTTL}, {redlock, time.Second, time.Second}, {own, 0, 0}, {own, time.Second, time.Second},
	} {
		if got := tc.m.LeaseTTL(tc.ttl); got != tc.got {
			t.Errorf("%s with ttl %v: %v, want %v", tc.m.Name, tc.ttl, got, tc.got)
		}
	}
	root, err := filepath.Abs("../drivers")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := driver.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	none := map[string]bool{"node-redlock": true, "sesame-redlock": true, "sesame-redlock-using": true,
		"python-redis-lock-renew": true, "redisson-lease": true, "redis-py-8-reacquire": true,
		"rslock": true, "rslock-using": true, "shedlock": true, "shedlock-safe": true}
	for _, m := range repo {
		if m.NoDefaultTTL != none[m.Name] {
			t.Errorf("drivers/%s: no_default_ttl %v, want %v", m.Name, m.NoDefaultTTL, none[m.Name])
		}
	}
}
