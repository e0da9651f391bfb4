package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lockbench/lockbench/results"
)

// runMerge combines records of shards of one load into one. Records of a
// sharded run (--shard) must be of one run; a missing shard is reported on
// stderr, and the merge goes on.
func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", stderr)
	out := fs.StringP("out", "o", "", "the merged record (required)")
	format := fs.String("format", "table", "what to print: "+strings.Join(results.Formats, ", "))
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() < 1 {
		return usagef("merge: give at least two records (lockbench merge A.json B.json -o merged.json)")
	}
	if *out == "" {
		return usagef("--out: the merged record needs a file (-o merged.json)")
	}
	if err := results.CheckFormat(*format); err != nil {
		return usagef("--format: %w", err)
	}
	var recs []*results.Record
	for _, path := range fs.Args() {
		rec, err := results.Load(path)
		if err != nil {
			return usageError{err}
		}
		recs = append(recs, rec)
	}
	if len(recs) == 1 && recs[0].Shard == nil {
		// One shard alone is what is left of a run whose others died.
		return usagef("merge: give at least two records, or the one shard left of a sharded run (lockbench merge A.json B.json -o merged.json)")
	}
	merged, err := results.Merge(recs)
	if err != nil {
		return usageError{err}
	}
	for _, i := range merged.MissingShards {
		n := merged.ShardCount
		fmt.Fprintf(stderr, "lockbench: merge: shard %d/%d missing: figures cover %d of %d shards\n", i, n, n-len(merged.MissingShards), n)
	}
	if err := results.Save(merged, *out); err != nil {
		return err
	}
	return results.Render(stdout, merged, *format)
}
