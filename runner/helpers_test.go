package runner_test

import (
	"testing"

	"github.com/lockbench/lockbench/runner/runnertest"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
	"github.com/lockbench/lockbench/variants"
)

func startRedis(t *testing.T) topologies.Endpoint { return topotest.Endpoint(t) }

func cmd(name, key string, args ...string) variants.Command { return variants.Cmd(name, key, args...) }

// The helpers runner's tests share with runner/faultsuite's and
// runner/clientsuite's.
var (
	runPlan      = runnertest.Run
	runPlanOn    = runnertest.RunOn
	scenarioPlan = runnertest.ScenarioPlan
	mustFault    = runnertest.Fault
	dist         = runnertest.Dist
	cellOf       = runnertest.CellOf
)
