package conform_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/conform"
	"github.com/lockbench/lockbench/driver/drivertest"
)

// maxSuites is how many drivers' suites TestLibraryDriversPass runs at
// once, and maxJVMSuites how many of those may be a JVM's: a JVM driver
// spends seconds of CPU starting, in each of the suite's processes (a
// Spring suite takes 10 s of CPU in 12.6 s alone), so five Spring suites
// beside Redisson's and ShedLock's went past the 30 s init deadline under
// make test-short, where a Spring driver alone answers init in 2.7 s.
const (
	maxSuites    = 6
	maxJVMSuites = 2
)

// The drivers of the libraries people run (drivers/, installed by make
// drivers, which make test runs first) pass every check. A driver whose
// language or library is missing fails here with what to install: a driver
// is never skipped in silence.
func TestLibraryDriversPass(t *testing.T) {
	t.Parallel() // each driver on a redis-server of its own; checks of outcomes
	known := drivertest.Repository(t)
	names := []string{"redis-py", "node-redlock", "sesame-redlock", "sesame-redlock-using",
		"redis-py-8", "python-redis-lock", "python-redis-lock-renew", "pottery-redlock",
		"redisson", "redisson-unsynced", "redisson-lease", "redisson-fenced", "redisson-semaphore", "redisson-observed",
		"shedlock", "shedlock-safe", "redlock-universal", "redlock-universal-using",
		"redis-semaphore", "redis-semaphore-semaphore", "redis-semaphore-redlock",
		"spring-redis-lock", "spring-redis-lock-pubsub", "spring-redis-lock-renew", "spring-redis-lock-pubsub-renew", "spring-redis-lock-shared", "rslock", "rslock-using"}
	// The drivers' suites in goroutines rather than parallel subtests, a
	// few at a time: a suite mostly waits (its acquire timeouts), and go
	// test runs no more parallel subtests than GOMAXPROCS, 2 here; all of
	// them at once start that many JVMs and runtimes together on the
	// machine's 2 cores.
	slots, jvmSlots := make(chan struct{}, maxSuites), make(chan struct{}, maxJVMSuites)
	type outcome struct {
		m   driver.Manifest
		rep conform.Report
		err error
	}
	outcomes := make([]outcome, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		m, err := driver.Find(known, name)
		if err != nil {
			outcomes[i].err = err
			continue
		}
		outcomes[i].m = m
		wg.Add(1)
		go func() {
			defer wg.Done()
			if m.Language == "java" { // its JVM turn first, holding no slot meanwhile
				jvmSlots <- struct{}{}
				defer func() { <-jvmSlots }()
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			// driver check's own acquire timeout: a library starts a thread
			// or a connection for each of the 64 clients of in-flight,
			// which on a loaded machine can take longer than run's 500 ms.
			rep, err := conform.Run(context.Background(), conform.Options{Driver: m})
			if err != nil {
				err = fmt.Errorf("%w (make drivers installs what %s needs: %s)", err, name, m.Requires)
			}
			outcomes[i].rep, outcomes[i].err = rep, err
		}()
	}
	wg.Wait()
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			o := outcomes[i]
			if o.err != nil {
				t.Fatal(o.err)
			}
			for _, r := range o.rep.Results {
				t.Log(r)
				if !r.Passed {
					t.Errorf("%s", r)
				}
			}
			if o.rep.Failed() != 0 || o.rep.Driver.Library == "" || o.rep.Driver.Version == "" {
				t.Errorf("%s, driver %+v", o.rep.Summary(), o.rep.Driver)
			}
		})
	}
}
