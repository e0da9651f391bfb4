package clientsuite_test

import (
	"os"
	"testing"

	"github.com/lockbench/lockbench/runner/runnertest"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// TestMain fails the package's tests when any goroutine they started
// outlives them.
func TestMain(m *testing.M) { os.Exit(topotest.Main(m)) }

var (
	runPlan      = runnertest.Run
	dist         = runnertest.Dist
	cellOf       = runnertest.CellOf
	mustFault    = runnertest.Fault
	scenarioPlan = runnertest.ScenarioPlan
)
