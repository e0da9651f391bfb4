package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
	"github.com/lockbench/lockbench/runner"
)

// runFindings runs every scenario (or those named) against its variants and
// writes the findings report, with porcupine's verdict on every cell's
// history counted against the oracle's.
func runFindings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("findings", stderr)
	out := fs.String("out", "docs/findings.md", "the `FILE` of the markdown report")
	only := fs.StringSlice("scenarios", nil, "run only these scenarios, comma-separated `NAMES` (default: all)")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	for _, name := range *only {
		if _, err := plan.LookupScenario(name); err != nil {
			return usagef("--scenarios: %w", err)
		}
	}
	if err := checkOutFile("--out", *out); err != nil { // before the scenarios run
		return err
	}
	var findings []render.Finding
	for _, s := range plan.Scenarios {
		if len(*only) > 0 && !slices.Contains(*only, s.Name) {
			continue
		}
		p, err := buildPlan(&s, plan.Overrides{})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "lockbench: findings: %s (%s)\n", s.Name, strings.Join(s.Variants, ", "))
		rec, err := runner.Run(ctx, p, runner.Options{History: &runner.HistoryOptions{Check: true}})
		if err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if rec.Interrupted {
			return fmt.Errorf("%w during scenario %s: %s not written", errInterrupted, s.Name, *out)
		}
		findings = append(findings, render.Finding{Name: s.Name, Tests: s.Tests, Source: s.Source, Predicts: s.Predicts,
			Command: "lockbench run --scenario " + s.Name, Expect: s.Expect, Record: rec})
	}
	var buf bytes.Buffer
	if err := render.WriteFindings(&buf, findings); err != nil {
		return err
	}
	writeAgreement(&buf, findings)
	if err := record.WriteAtomic(*out, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "findings of %d scenarios written to %s\n", len(findings), *out)
	return nil
}

// writeAgreement writes the table of porcupine's verdicts on the cells'
// histories against the oracle's overlaps, per scenario: they agree on a
// cell when its critical sections are not linearizable exactly where the
// oracle counted overlaps.
func writeAgreement(w io.Writer, findings []render.Finding) {
	var b strings.Builder
	var total agreement
	for _, f := range findings {
		if f.Record == nil {
			continue
		}
		var a agreement
		for _, c := range f.Record.Cells {
			a.add(c)
		}
		total.merge(a)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s |\n", f.Name, a.cells, a.overlapping, a.notLinearizable,
			a.agree, a.cells-a.agree, a.note())
	}
	fmt.Fprintf(w, "## Porcupine's second opinion\n\n"+
		"Every cell above recorded its history (`lockbench run --history DIR` writes it; `lockbench check` reads it), "+
		"and porcupine checked its critical sections for linearizability against a lock (a semaphore of the "+
		"cell's limit) per lock name, independently of the oracle (docs/history.md). They agree on a cell when "+
		"the history is not linearizable exactly where the oracle counted overlaps. "+
		"**%d of %d cells agree, %d disagree**; %d histories were not linearizable, %d cells had overlaps.\n\n",
		total.agree, total.cells, total.cells-total.agree, total.notLinearizable, total.overlapping)
	fmt.Fprintf(w, "| scenario | cells | with overlaps | not linearizable | agree | disagree | notes |\n"+
		"|---|---|---|---|---|---|---|\n%s| **all** | %d | %d | %d | %d | %d | |\n\n", b.String(),
		total.cells, total.overlapping, total.notLinearizable, total.agree, total.cells-total.agree)
}

// agreement counts the cells of a scenario by the oracle's and porcupine's
// verdicts.
type agreement struct {
	cells, overlapping, notLinearizable, agree int
	unchecked, unknown, cut                    int
}

func (a *agreement) add(c record.Cell) {
	a.cells++
	overlapping := c.Violations.Overlaps > 0
	if overlapping {
		a.overlapping++
	}
	h := c.History
	switch {
	case c.Error != "" || h == nil || h.Check == nil || h.Check.Error != "":
		a.unchecked++
		return
	case h.Check.Verdict == record.VerdictUnknown:
		a.unknown++
		return
	}
	if h.Cut {
		a.cut++
	}
	notLinearizable := h.Check.Verdict == record.VerdictNotLinearizable
	if notLinearizable {
		a.notLinearizable++
	}
	if notLinearizable == overlapping {
		a.agree++
	}
}

func (a *agreement) merge(b agreement) {
	a.cells += b.cells
	a.overlapping += b.overlapping
	a.notLinearizable += b.notLinearizable
	a.agree += b.agree
	a.unchecked += b.unchecked
	a.unknown += b.unknown
	a.cut += b.cut
}

// note says why cells were not compared, if any were not.
func (a agreement) note() string {
	var notes []string
	for _, n := range []struct {
		count int
		what  string
	}{{a.unchecked, "not checked"}, {a.unknown, "verdict unknown"}, {a.cut, "history cut"}} {
		if n.count > 0 {
			notes = append(notes, fmt.Sprintf("%d %s", n.count, n.what))
		}
	}
	return strings.Join(notes, ", ")
}
