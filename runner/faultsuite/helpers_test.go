package faultsuite_test

import (
	"os"
	"testing"

	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/runner/runnertest"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// TestMain fails the package's tests when any goroutine they started
// outlives them, and removes the drivers they built.
func TestMain(m *testing.M) { os.Exit(drivertest.Main(m)) }

var (
	startRedis   = topotest.Endpoint
	runPlan      = runnertest.Run
	runPlanOn    = runnertest.RunOn
	scenarioPlan = runnertest.ScenarioPlan
	mustFault    = runnertest.Fault
	dist         = runnertest.Dist
)
