package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/witness"
	"github.com/lockbench/lockbench/workloads"
)

// laterCellWait bounds the wait for the other shards at every cell after
// the first: by then every shard has started, and the cells of one plan
// start within seconds of each other.
const laterCellWait = 30 * time.Second

// DefaultShardWait is how long a shard waits at the witness for the others
// before the first cell.
const DefaultShardWait = 2 * time.Minute

// cellOracle is the oracle of one cell, in memory or in a witness.
type cellOracle struct {
	oracle.Oracle
	// ready, when set, is where the cell's clients wait for the other
	// shards (workloads.Spec.Ready).
	ready func(context.Context) error
	// final reads the figures once the cell is done.
	final func(context.Context) (oracle.Report, *record.WitnessInfo)
}

// inMemory is the oracle of a cell checked in this process alone.
func inMemory(keys int, p plan.Plan) cellOracle {
	o := oracle.New(keys, p.Limit)
	if p.Fence == plan.FenceReject {
		o.RejectStaleWrites()
	}
	return cellOracle{Oracle: o, final: func(context.Context) (oracle.Report, *record.WitnessInfo) { return o.Report(), nil }}
}

// witnessing is a run's use of a witness: its shards meet there at every
// cell, keep their cells' oracles there, and leave their records there.
type witnessing struct {
	w           *witness.Witness
	shard       workloads.Shard // 1/1 for a run of one process
	runPrefix   string
	fingerprint string // of the plan: every shard must bring the same
	wait        time.Duration
	// refused is set when the witness refused this shard (another plan,
	// or the shard arrived twice): the run stops.
	refused error
}

func newWitnessing(w *witness.Witness, p plan.Plan, shard *workloads.Shard, runPrefix string, wait time.Duration) (*witnessing, error) {
	x := &witnessing{w: w, shard: workloads.Shard{Index: 1, Count: 1}, runPrefix: runPrefix, wait: wait}
	if shard != nil {
		x.shard = *shard
	}
	if x.wait <= 0 {
		x.wait = DefaultShardWait
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	x.fingerprint = hex.EncodeToString(sum[:])
	return x, nil
}

// oracle is cell number cell's oracle in the witness, of keys resources;
// its keys are under cellPrefix.
func (x *witnessing) oracle(cell int, cellPrefix string, keys int, p plan.Plan) cellOracle {
	prefix := cellPrefix + "witness:"
	o := x.w.Oracle(prefix, keys, p.Limit, p.Fence == plan.FenceReject)
	info := &record.WitnessInfo{}
	wait := x.wait
	if cell > 0 {
		wait = min(wait, laterCellWait)
	}
	co := cellOracle{Oracle: o}
	if x.shard.Count > 1 {
		co.ready = func(ctx context.Context) error {
			m, err := x.w.Meet(ctx, x.runPrefix, prefix, x.shard.Index, x.shard.Count, x.fingerprint, wait)
			info.Absent = m.Missing
			if errors.Is(err, witness.ErrPlanMismatch) || errors.Is(err, witness.ErrArrivedTwice) {
				x.refused = err
			}
			return err
		}
	}
	co.final = func(ctx context.Context) (oracle.Report, *record.WitnessInfo) {
		rep, done, err := o.Finish(context.WithoutCancel(ctx), x.shard.Index)
		if err != nil {
			rep = o.Report() // counts the failure; the last report read
		}
		info.Done = done
		if n, first := o.Failures(); n > 0 {
			info.Failures, info.FirstFailure = n, first.Error()
		}
		return rep, info
	}
	return co
}

// leave records that this shard has finished the run, keeps rec in the
// witness for merge, and reports whether every shard has finished (the
// last one removes the run's keys).
func (x *witnessing) leave(ctx context.Context, rec *record.Record) (last bool, err error) {
	ctx = context.WithoutCancel(ctx)
	done, err := x.w.Done(ctx, x.runPrefix+"finished", x.shard.Index)
	if err != nil {
		return false, err
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	return done == x.shard.Count, x.w.Keep(ctx, x.runPrefix, x.shard.Index, raw)
}
