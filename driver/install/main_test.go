package install

import (
	"os"
	"testing"

	"github.com/lockbench/lockbench/topologies/topotest"
)

// TestMain fails the package's tests when a goroutine they started
// outlives them: a connection to a registry kept open, say.
func TestMain(m *testing.M) { os.Exit(topotest.Main(m)) }
