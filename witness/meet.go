package witness

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/variants"
)

var (
	//go:embed lua/meet.lua
	meetLua    string
	meetScript = variants.NewScript(meetLua)
	//go:embed lua/done.lua
	doneLua    string
	doneScript = variants.NewScript(doneLua)
)

// Meeting is what a shard found when it met the others at a cell's start.
type Meeting struct {
	// Missing are the shards (from 1) that had not arrived when the wait
	// ran out: the cell started without them.
	Missing []int
	// Waited is how long the shard waited for the others.
	Waited time.Duration
}

// Meet holds shard index (from 1) of count at the start of the cell whose
// keys are under prefix until every shard of the run has arrived there, or
// wait has passed. The run's shards must bring the same plan fingerprint
// (kept under runPrefix): else ErrPlanMismatch. A shard that arrives twice
// gets ErrArrivedTwice. An error of ctx ends the wait.
func (w *Witness) Meet(ctx context.Context, runPrefix, prefix string, index, count int, fingerprint string, wait time.Duration) (Meeting, error) {
	began := time.Now()
	arrivedKey, goKey := prefix+"arrived", prefix+"go"
	reply, err := w.run(ctx, meetScript, []string{arrivedKey, goKey, runPrefix + "plan"},
		strconv.Itoa(index), strconv.Itoa(count), fingerprint, keepSeconds)
	if err != nil {
		var se *variants.ServerError
		switch {
		case errors.As(err, &se) && strings.HasPrefix(se.Msg, "WITNESS-PLAN"):
			return Meeting{}, ErrPlanMismatch
		case errors.As(err, &se) && strings.HasPrefix(se.Msg, "WITNESS-TWICE"):
			return Meeting{}, fmt.Errorf("%w: shard %d/%d", ErrArrivedTwice, index, count)
		}
		return Meeting{}, err
	}
	if arrived, _ := reply.(int64); arrived >= int64(count) {
		return Meeting{Waited: time.Since(began)}, nil
	}
	// The last to arrive pushes a token for each of the others.
	wctx, cancel := context.WithTimeout(ctx, wait+callTimeout)
	defer cancel()
	token, err := w.conn.Do(wctx, variants.Bare("BLPOP", goKey, strconv.FormatFloat(wait.Seconds(), 'f', 3, 64)))
	m := Meeting{Waited: time.Since(began)}
	switch {
	case ctx.Err() != nil:
		return m, ctx.Err()
	case err != nil:
		return m, fmt.Errorf("witness %s: wait for the other shards: %w", w.addr, err)
	case token != nil:
		return m, nil
	}
	// Timed out (a nil reply): name those missing.
	cctx, cancel2 := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel2()
	members, err := w.conn.Do(cctx, variants.Cmd("SMEMBERS", arrivedKey))
	if err != nil {
		return m, fmt.Errorf("witness %s: %w", w.addr, err)
	}
	arrived := map[int]bool{}
	list, _ := members.([]any)
	for _, x := range list {
		s, _ := x.(string)
		i, _ := strconv.Atoi(s)
		arrived[i] = true
	}
	for i := 1; i <= count; i++ {
		if !arrived[i] {
			m.Missing = append(m.Missing, i)
		}
	}
	return m, nil
}

// Done records that shard index is done with what key counts (a cell, the
// run) and returns how many shards are done, this one included.
func (w *Witness) Done(ctx context.Context, key string, index int) (int, error) {
	reply, err := w.run(ctx, doneScript, []string{key}, strconv.Itoa(index), keepSeconds)
	if err != nil {
		return 0, err
	}
	n, _ := reply.(int64)
	return int(n), nil
}

// Finish records that shard index is done with o's cell and reads the
// cell's report: what every shard did, complete when done equals the shard
// count.
func (o *Oracle) Finish(ctx context.Context, index int) (rep oracle.Report, done int, err error) {
	if done, err = o.w.Done(ctx, o.prefix+"done", index); err != nil {
		return oracle.Report{}, 0, err
	}
	rep, err = o.report(ctx)
	return rep, done, err
}

// recordKey is where shard index keeps its record.
func recordKey(runPrefix string, index int) string {
	return runPrefix + "record:" + strconv.Itoa(index)
}

// Keep stores shard index's record (JSON) for lockbench merge.
func (w *Witness) Keep(ctx context.Context, runPrefix string, index int, record []byte) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*callTimeout)
	defer cancel()
	_, err := w.conn.Do(cctx, variants.Cmd("SET", recordKey(runPrefix, index), string(record), "EX", keepSeconds))
	if err != nil {
		return fmt.Errorf("witness %s: keep the record: %w", w.addr, err)
	}
	return nil
}

// Records returns the records the shards of the run under runPrefix kept,
// in shard order.
func (w *Witness) Records(ctx context.Context, runPrefix string) ([][]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, 4*callTimeout)
	defer cancel()
	var keys []string
	err := variants.ScanPrefix(cctx, w.conn, runPrefix+"record:", func(key string) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("witness %s: %w", w.addr, err)
	}
	index := func(k string) int { i, _ := strconv.Atoi(strings.TrimPrefix(k, runPrefix+"record:")); return i }
	slices.SortFunc(keys, func(a, b string) int { return index(a) - index(b) })
	var out [][]byte
	for _, k := range keys {
		reply, err := w.conn.Do(cctx, variants.Cmd("GET", k))
		if err != nil {
			return nil, fmt.Errorf("witness %s: %w", w.addr, err)
		}
		s, _ := reply.(string)
		out = append(out, []byte(s))
	}
	return out, nil
}
