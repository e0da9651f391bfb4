package topologies

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The password is the file's first line, else the environment's; a file
// that cannot give one is bad input naming --password-file, not the
// password.
func TestReadPassword(t *testing.T) {
	t.Setenv(PasswordEnv, "from-env")
	dir := t.TempDir()
	good, empty := filepath.Join(dir, "pw"), filepath.Join(dir, "empty")
	if err := os.WriteFile(good, []byte("s3cret\r\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte("\nhunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pw, err := ReadPassword(""); pw != "from-env" || err != nil {
		t.Errorf("no file: %q, %v", pw, err)
	}
	if pw, err := ReadPassword(good); pw != "s3cret" || err != nil {
		t.Errorf("file: %q, %v", pw, err)
	}
	for _, file := range []string{empty, filepath.Join(dir, "missing")} {
		_, err := ReadPassword(file)
		if !errors.Is(err, ErrBadSpec) || !strings.HasPrefix(err.Error(), "--password-file: ") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// Only an even number of independent masters is warned of.
func TestEvenMastersWarning(t *testing.T) {
	for spec, warned := range map[string]bool{"local:redlock?nodes=4": true, "local:redlock?nodes=5": false, "local": false} {
		if got := EvenMastersWarning(Spec{Name: spec}) != ""; got != warned {
			t.Errorf("%s: warned %v, want %v", spec, got, warned)
		}
	}
	two, _, err := Spec{Targets: []string{"redis://127.0.0.1:1", "redis://127.0.0.1:2"}}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if w := EvenMastersWarning(two); !strings.Contains(w, "2 independent masters") {
		t.Errorf("two targets: %q", w)
	}
}

// The run flags of each access: targets, a cluster's seeds, sentinels.
func TestRunFlags(t *testing.T) {
	eps := []Endpoint{{Addr: "127.0.0.1:7001"}, {Addr: "127.0.0.1:7002", Username: "u"}}
	for a, want := range map[*Access]string{
		{Mode: ModeIndependent, Endpoints: eps}:                    "--target redis://127.0.0.1:7001 --target redis://u@127.0.0.1:7002",
		{Mode: ModeCluster, Endpoints: eps}:                        "--cluster 127.0.0.1:7001,127.0.0.1:7002",
		{Mode: ModeSingle, Endpoints: eps, MasterName: "mymaster"}: "--sentinel 127.0.0.1:7001,127.0.0.1:7002 --master-name mymaster",
	} {
		if got := a.RunFlags(); got != want {
			t.Errorf("%+v: %q, want %q", *a, got, want)
		}
	}
}
