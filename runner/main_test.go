package runner

import (
	"flag"
	"strconv"
	"testing"

	"go.uber.org/goleak"
)

// parallelTests is how many of this package's parallel tests run at once
// unless -parallel says otherwise. They are the ones that mostly wait on
// the wall clock on topologies of their own (failovers, cells of fixed
// duration), which overlap well beyond the 2 a 2-core machine would get by
// default; the tests that time things tightly are not among them, and
// run first, alone.
const parallelTests = 4

// TestMain fails the package's tests when any goroutine they started is
// still running once they are done.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(parallelTests)); err != nil {
			panic(err)
		}
	}
	// toxiproxy can leave a toxic's pipe goroutine blocked on a link whose
	// proxy was stopped while data was in flight (seen once in a full
	// -race run after the partition tests); it is the library's, not ours.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2/toxics.(*ToxicStub).Run"))
}
