package bugs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/runner"
)

// DefaultRepeat is how many times Run runs each entry on each version.
const DefaultRepeat = 5

// ErrInterrupted is wrapped by Run's error when its context ends.
var ErrInterrupted = errors.New("bugs: interrupted")

// Options are Run's.
type Options struct {
	// Repeat is the runs per version (default DefaultRepeat).
	Repeat int
	// Dir, when set, keeps every run's record there, as
	// ID-VERSION-N.json.
	Dir string
	// Progress is told of each run as it ends, and of a library
	// installed on first use; nil: not told.
	Progress io.Writer
}

// Outcome is one run of an entry on one version.
type Outcome struct {
	// Seen says that the bug showed; Why is the figure that showed it.
	Seen bool
	Why  string
	// Failed is why the run's cell could not run ("" when it ran): a
	// failed run counts on neither side of the tally.
	Failed string
	// The cell's figures that entries' predictions speak of.
	Acquisitions, Overlaps, LeaseLost, Errors  int64
	ExpiredAtAcquire, LateHolds, StaleReleases int64
	// Record is the record's file, when Options.Dir keeps them.
	Record string
}

// Side is an entry's runs on one version (or one of its Also variants).
type Side struct {
	// Version names the side: the library's version, or the Also variant.
	Version string
	Variant string // as --variants takes it
	Runs    []Outcome
}

// Result is an entry run on both its versions, and on its Also variants.
type Result struct {
	Entry           Entry
	Affected, Fixed Side
	Also            []Side
}

// sides are r's sides in the order they run.
func (r *Result) sides() []*Side {
	s := []*Side{&r.Affected, &r.Fixed}
	for i := range r.Also {
		s = append(s, &r.Also[i])
	}
	return s
}

// Run runs each entry on its affected and its fixed version, Repeat times
// each, the two versions interleaved (affected, fixed, affected, ...) so
// that a machine's drift weighs on both alike.
func Run(ctx context.Context, entries []Entry, o Options) ([]Result, error) {
	if o.Repeat <= 0 {
		o.Repeat = DefaultRepeat
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	var results []Result
	for _, e := range entries {
		fixed, fixedVariant := e.FixedSide()
		r := Result{Entry: e, Affected: Side{Version: e.Affected, Variant: e.Variant(e.Affected)},
			Fixed: Side{Version: fixed, Variant: fixedVariant}}
		for _, v := range e.Also {
			r.Also = append(r.Also, Side{Version: v, Variant: v})
		}
		for i := 1; i <= o.Repeat; i++ {
			for _, side := range r.sides() {
				out, err := runOnce(ctx, e, side, i, o)
				if err != nil {
					return results, err
				}
				side.Runs = append(side.Runs, out)
				fmt.Fprintf(o.Progress, "bugs: %s on %s, run %d of %d: %s\n", e.ID, side.Version, i, o.Repeat, out.Summary())
			}
		}
		results = append(results, r)
	}
	return results, nil
}

// runOnce runs e on side once, its i-th run.
func runOnce(ctx context.Context, e Entry, side *Side, i int, o Options) (Outcome, error) {
	version := side.Version
	p, err := plan.Build(&e.Run, plan.Overrides{Variants: []string{side.Variant}, Progress: o.Progress})
	if err != nil {
		return Outcome{}, fmt.Errorf("bugs: %s on %s: %w", e.ID, version, err)
	}
	rec, err := runner.Run(ctx, p, runner.Options{})
	if err != nil {
		return Outcome{}, fmt.Errorf("bugs: %s on %s: %w", e.ID, version, err)
	}
	if rec.Interrupted || ctx.Err() != nil {
		return Outcome{}, fmt.Errorf("%w during %s on %s", ErrInterrupted, e.ID, version)
	}
	var out Outcome
	if o.Dir != "" {
		name := strings.TrimPrefix(version, plan.DriverPrefix)
		out.Record = filepath.Join(o.Dir, fmt.Sprintf("%s-%s-%d.json", e.ID, name, i))
		if err := record.Save(rec, out.Record); err != nil {
			return Outcome{}, err
		}
	}
	if len(rec.Cells) != 1 {
		return Outcome{}, fmt.Errorf("bugs: %s on %s: %d cells, want one (the entry's run must have one client count)", e.ID, version, len(rec.Cells))
	}
	c := &rec.Cells[0]
	if c.Error != "" {
		out.Failed = c.Error
		return out, nil
	}
	out.Seen, out.Why = e.SeenIn(c)
	out.Acquisitions, out.Overlaps, out.LeaseLost, out.Errors = c.Acquisitions, c.Violations.Overlaps, c.Violations.LeaseLost, c.Errors
	out.StaleReleases = c.Violations.StaleReleases
	if m := c.Margins; m != nil {
		out.ExpiredAtAcquire, out.LateHolds = m.ExpiredAtAcquire, m.LateHolds
	}
	return out, nil
}

// Summary is the run in a few words: seen (and by what) or not, and its
// counts.
func (o Outcome) Summary() string {
	if o.Failed != "" {
		return "could not run: " + o.Failed
	}
	verdict := "not seen"
	if o.Seen {
		verdict = "seen: " + o.Why
	}
	return fmt.Sprintf("%s; %d acquisitions, %d overlaps, %d leases lost, %d stale releases, %d expired at acquire, %d holds past their lease, %d errors",
		verdict, o.Acquisitions, o.Overlaps, o.LeaseLost, o.StaleReleases, o.ExpiredAtAcquire, o.LateHolds, o.Errors)
}
