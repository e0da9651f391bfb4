package runner

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when any goroutine they started is
// still running once they are done.
func TestMain(m *testing.M) {
	// toxiproxy can leave a toxic's pipe goroutine blocked on a link whose
	// proxy was stopped while data was in flight (seen once in a full
	// -race run after the partition tests); it is the library's, not ours.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2/toxics.(*ToxicStub).Run"))
}
