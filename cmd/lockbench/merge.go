package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lockbench/lockbench/outputs"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"

	"github.com/lockbench/lockbench/runner"
)

// runMerge combines the records of the shards of one run (--run-id ID
// --shard i/N) into one; records of separate runs are refused. A missing
// shard is reported on stderr, and the merge goes on.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", stderr)
	out := fs.StringP("out", "o", "", "the merged record's `FILE` (required)")
	witnessURL := fs.String("witness", "", "also merge the records the shards of --run-id left in the witness at `URL` (redis://host:port)")
	runID := fs.String("run-id", "", "the `ID` of the run whose records to take from --witness")
	format := fs.String("format", "table", "output `FORMAT`: "+strings.Join(render.Formats, ", "))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 && *witnessURL == "" {
		return usagef("merge: give at least two records (lockbench merge A.json B.json -o merged.json), or --witness and --run-id")
	}
	if (*witnessURL == "") != (*runID == "") {
		return usagef("--witness and --run-id go together: the witness keeps the records of the run --run-id names")
	}
	if *out == "" {
		return usagef("--out: the merged record needs a file (-o merged.json)")
	}
	if info, err := os.Stat(*out); err == nil && info.IsDir() {
		return usagef("--out: %s is a directory; give a file (-o merged.json)", *out)
	}
	if err := outputs.CheckFile("--out", *out); err != nil {
		return err
	}
	if err := render.CheckFormat(*format); err != nil {
		return usagef("--format: %w", err)
	}
	var recs []*record.Record
	for _, path := range fs.Args() {
		rec, err := record.Load(path)
		if err != nil {
			return usageError{err}
		}
		recs = append(recs, rec)
	}
	if *witnessURL != "" {
		kept, err := keptRecords(ctx, *witnessURL, *runID)
		if err != nil {
			return err
		}
		recs = append(recs, kept...)
	}
	if len(recs) == 0 {
		return usagef("--witness: %s keeps no record of run %s (its shards leave them there when they finish; they expire after a day)", *witnessURL, *runID)
	}
	if len(recs) == 1 && recs[0].Shard == nil {
		// One shard alone is what is left of a run whose others died.
		return usagef("merge: give at least two records, or the one shard left of a sharded run (lockbench merge A.json B.json -o merged.json)")
	}
	merged, err := record.Merge(recs)
	if err == nil {
		// After Merge, which says first what else does not fit (another
		// configuration): only the shards of one run add up to a load.
		err = record.CheckOneRun(recs)
	}
	if err != nil {
		// Merge counts records from 1; name the files they came from.
		return usagef("merge %s: %w", strings.Join(fs.Args(), " "), err)
	}
	for _, i := range merged.MissingShards {
		n := merged.ShardCount
		fmt.Fprintf(stderr, "lockbench: merge: shard %d/%d missing: figures cover %d of %d shards\n", i, n, n-len(merged.MissingShards), n)
	}
	if err := record.Save(merged, *out); err != nil {
		return err
	}
	return render.Render(stdout, merged, *format)
}

// keptRecords are the records the shards of run runID left in the witness
// at url.
func keptRecords(ctx context.Context, url, runID string) ([]*record.Record, error) {
	ep, err := parseWitness(url)
	if err != nil {
		return nil, err
	}
	recs, err := runner.KeptRecords(ctx, ep, url, runID)
	if errors.Is(err, record.ErrBadRecord) {
		return nil, usageError{err}
	}
	return recs, err
}
