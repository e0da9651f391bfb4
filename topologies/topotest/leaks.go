package topotest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// leakGrace is how long a goroutine may outlive the tests before it counts
// as leaked: rueidis' cluster client sleeps 5 s in a refresh it started
// before it was closed, and the cluster tests may be the last to end now
// that the parallel tests run after the others.
const leakGrace = 6 * time.Second

// Main runs a test package's tests and returns its exit code, 1 when any
// goroutine they started is still running leakGrace after they are done.
// A package's TestMain calls os.Exit(topotest.Main(m)).
func Main(m *testing.M) int {
	// toxiproxy can leave a toxic's pipe goroutine blocked on a link whose
	// proxy was stopped while data was in flight (seen once in a full
	// -race run after the partition tests); it is the library's, not ours.
	ignore := goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2/toxics.(*ToxicStub).Run")
	code := m.Run()
	if code == 0 {
		err := goleak.Find(ignore)
		for deadline := time.Now().Add(leakGrace); err != nil && time.Now().Before(deadline); err = goleak.Find(ignore) {
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: Errors on successful test run: %v\n", err)
			code = 1
		}
	}
	return code
}
