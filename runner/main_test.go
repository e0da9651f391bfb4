package runner

import (
	"os"
	"testing"

	"github.com/lockbench/lockbench/driver/drivertest"
)

// TestMain fails the package's tests when any goroutine they started
// outlives them, and removes the drivers they built.
func TestMain(m *testing.M) { os.Exit(drivertest.Main(m)) }
