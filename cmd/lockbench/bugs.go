package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lockbench/lockbench/bugs"
	"github.com/lockbench/lockbench/outputs"
	"github.com/lockbench/lockbench/record"
)

// runBugs lists the catalogue of known bugs; bugs run [ID...] runs them.
func runBugs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "run" {
		return runBugsRun(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("bugs", stderr)
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	entries, err := bugs.Entries()
	if err != nil {
		return err
	}
	for _, e := range entries {
		fixed, _ := e.FixedSide()
		fmt.Fprintf(stdout, "%-22s %s %s against %s: %s\n", e.ID, e.Library, e.Affected, fixed, e.Title)
	}
	return nil
}

// runBugsRun runs entries on both their versions and writes the report.
func runBugsRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bugs run", stderr)
	repeat := fs.Int("repeat", bugs.DefaultRepeat, "runs of each entry on each version, `N`")
	out := fs.String("out", "", "also write the markdown report to `FILE` (docs/bugs.md)")
	keep := fs.String("records", "", "keep every run's record in `DIR`, as ID-VERSION-N.json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *repeat < 1 {
		return usagef("--repeat: must be at least 1 (got %d)", *repeat)
	}
	if *out != "" {
		if err := outputs.CheckFile("--out", *out); err != nil {
			return err
		}
	}
	if *keep != "" {
		// made before the first run: its record is written as it ends
		if err := os.MkdirAll(*keep, 0o755); err != nil {
			return usagef("--records: %s is not a directory lockbench can write: %w", *keep, err)
		}
	}
	all, err := bugs.Entries()
	if err != nil {
		return err
	}
	if all, err = bugs.Select(all, fs.Args()); err != nil {
		return usagef("%w", err)
	}
	results, err := bugs.Run(ctx, all, bugs.Options{Repeat: *repeat, Dir: *keep, Progress: stderr})
	if errors.Is(err, bugs.ErrInterrupted) {
		return fmt.Errorf("%w: %v", errInterrupted, err)
	}
	if err != nil {
		return err
	}
	if err := bugs.WriteTable(stdout, results); err != nil || *out == "" {
		return err
	}
	var buf bytes.Buffer
	command := strings.TrimSpace("lockbench bugs run " + strings.Join(args, " "))
	if err := bugs.WriteMarkdown(&buf, results, command); err != nil {
		return err
	}
	return record.WriteAtomic(*out, buf.Bytes())
}
