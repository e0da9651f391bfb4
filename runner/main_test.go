package runner

import (
	"os"
	"testing"

	"github.com/lockbench/lockbench/topologies/topotest"
)

// TestMain fails the package's tests when any goroutine they started
// outlives them.
func TestMain(m *testing.M) { os.Exit(topotest.Main(m)) }
