package bugs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
)

// One affected/fixed pair end to end, on redis-servers of its own:
// redis-py#4279 on 8.1.0 (the folder's venv) and 8.2.0 (installed from PyPI
// into the user's cache on first use, reused after). The mechanism is the
// library's: on 8.1.0 the first reacquire() of a Lock(timeout=0) deletes
// the held key, and a waiter takes it; on 8.2.0 the key is kept, without
// expiry, so no other client can get in. The report says both, and keeps
// every run's record.
func TestRunOnePair(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a driver on two library versions (-short)")
	}
	root, err := drivertest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(driver.DirEnv, filepath.Join(root, "drivers"))
	all, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Select(all, []string{"redis-py-4279"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	results, err := Run(context.Background(), entries, Options{Repeat: 1, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	t.Logf("8.1.0: %s; 8.2.0: %s", r.Affected.Runs[0].Summary(), r.Fixed.Runs[0].Summary())
	if r.Verdict() != Reproduced {
		t.Errorf("verdict %s; want reproduced (seen on 8.1.0, not on 8.2.0)", r.Verdict())
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, results, "lockbench bugs run redis-py-4279 --repeat 1"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| [redis-py-4279](#redis-py-4279) | redis-py | 8.1.0 | 1 of 1", "**reproduced**", "`lockbench bugs run redis-py-4279`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, md.String())
		}
	}
	for _, s := range []Side{r.Affected, r.Fixed} {
		if _, err := os.Stat(s.Runs[0].Record); err != nil {
			t.Errorf("%s's record: %v", s.Version, err)
		}
	}
}
