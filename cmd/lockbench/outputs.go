package main

import (
	"fmt"

	"github.com/lockbench/lockbench/outputs"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
	"github.com/lockbench/lockbench/workloads"
)

// Every file a command writes is checked before it starts any load
// (package outputs).

// preflight checks, before anything starts, what could fail only after
// the load: that the client count fits in memory, that every output can
// be written, and that the record of a run of the same id is not
// replaced without --overwrite. It gives the run its id if it has none.
func (o *runOptions) preflight(p plan.Plan) error {
	shard, err := o.sharding(p)
	if err != nil {
		return err
	}
	if err := plan.CheckMemory(p, shard); err != nil {
		return err
	}
	if o.runID == "" {
		o.runID = runner.NewRunID()
	}
	if err := o.checkOutputs(); err != nil {
		return err
	}
	if o.overwrite {
		return nil
	}
	return outputs.CheckNoRecordOf(recordPath(o.out, o.runID, shard), o.runID)
}

// checkOutputs checks --out (or the default results/runs/), --report and
// --hlog before any load.
func (o runOptions) checkOutputs() error {
	check := outputs.CheckDefaultDir
	if o.out != "" {
		check = func() error { return outputs.CheckFile("--out", o.out) }
	}
	if err := check(); err != nil {
		return err
	}
	if o.report != "" {
		if err := outputs.CheckFile("--report", o.report); err != nil {
			return err
		}
	}
	if o.hlog != "" {
		return outputs.CheckDir("--hlog", o.hlog)
	}
	return nil
}

// recordPath is where the record of run runID goes: out, by default
// results/runs/<run-id>.json (<run-id>.shard-i-of-N.json for a shard).
func recordPath(out, runID string, shard *workloads.Shard) string {
	switch {
	case out != "":
		return out
	case shard != nil:
		return record.DefaultPath(fmt.Sprintf("%s.shard-%d-of-%d", runID, shard.Index, shard.Count))
	default:
		return record.DefaultPath(runID)
	}
}
