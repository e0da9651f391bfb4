package conform_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/conform"
	"github.com/lockbench/lockbench/driver/drivertest"
)

// The drivers of the libraries people run (drivers/, installed by make
// drivers, which make test runs first) pass every check. A driver whose
// language or library is missing fails here with what to install: a driver
// is never skipped in silence.
func TestLibraryDriversPass(t *testing.T) {
	t.Parallel() // each driver on a redis-server of its own; checks of outcomes
	root, err := drivertest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	known, err := driver.Load(filepath.Join(root, "drivers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"redis-py", "node-redlock", "sesame-redlock", "sesame-redlock-using",
		"redisson", "redisson-unsynced", "redisson-lease", "redisson-fenced", "redisson-semaphore"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m, err := driver.Find(known, name)
			if err != nil {
				t.Fatal(err)
			}
			// driver check's own acquire timeout: a library starts a thread
			// or a connection for each of the 64 clients of in-flight,
			// which on a loaded machine can take longer than run's 500 ms.
			rep, err := conform.Run(context.Background(), conform.Options{Driver: m})
			if err != nil {
				t.Fatalf("%v (make drivers installs what %s needs: %s)", err, name, m.Requires)
			}
			for _, r := range rep.Results {
				t.Log(r)
				if !r.Passed {
					t.Errorf("%s", r)
				}
			}
			if rep.Failed() != 0 || rep.Driver.Library == "" || rep.Driver.Version == "" {
				t.Errorf("%s, driver %+v", rep.Summary(), rep.Driver)
			}
		})
	}
}
