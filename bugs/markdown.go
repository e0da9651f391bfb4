package bugs

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the catalogue's report (docs/bugs.md): a table of
// the entries with each version's tally and the verdict, then each entry
// in full: the tracker, the trigger, the predictions, what the code does,
// the command that reruns it and every run's figures. command is how the
// report was made.
func WriteMarkdown(w io.Writer, results []Result, command string) error {
	var b strings.Builder
	b.WriteString("# Known bugs, reproduced\n\n")
	b.WriteString("Lock libraries' tracker bugs, each run by lockbench on the release its tracker calls affected and on the " +
		"fixed one, through the library's own driver at each version (`drv:NAME@VERSION`). A run sees the bug when one of " +
		"the entry's figures holds on its cell; the tallies give in how many runs it was seen, with a 95 % Wilson " +
		"interval. **Reproduced**: seen in most runs on the affected version and in none on the fixed; **not " +
		"reproduced**: seen in none on the affected; **inconclusive**: anything else. The entries are `bugs/entries/*.yaml`.\n\n")
	fmt.Fprintf(&b, "Made with `%s`.\n\n", command)
	b.WriteString("| entry | library | affected | seen | fixed | seen | verdict |\n|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s | %s | **%s** |\n", r.Entry.ID, r.Entry.ID, r.Entry.Library,
			r.Affected.Version, r.Affected.Count(), r.Fixed.Version, r.Fixed.Count(), r.Verdict())
	}
	for _, r := range results {
		e := r.Entry
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", e.ID, e.Title)
		fmt.Fprintf(&b, "- **Tracker:** %s", e.Tracker)
		if e.Fix != "" {
			fmt.Fprintf(&b, "; the fix: %s", e.Fix)
		}
		fixed := r.Fixed.Version
		fmt.Fprintf(&b, "\n- **Versions:** %s %s (affected) against %s (fixed), driver `%s`\n", e.Library, e.Affected, fixed, e.Driver)
		fmt.Fprintf(&b, "- **Seen when:** %s\n", strings.Join(e.Seen, " or "))
		fmt.Fprintf(&b, "- **Predicts:** on %s, %s On %s, %s\n", e.Affected, e.Predicts.Affected, fixed, e.Predicts.Fixed)
		fmt.Fprintf(&b, "- **Verdict:** %s: seen in %s on %s, %s on %s\n", r.Verdict(), r.Affected.Count(), e.Affected, r.Fixed.Count(), fixed)
		for _, s := range r.Also {
			fmt.Fprintf(&b, "- **Beside them:** `%s` seen in %s (weighs on no verdict)\n", s.Version, s.Count())
		}
		fmt.Fprintf(&b, "- **Rerun:** `lockbench bugs run %s`\n\n", e.ID)
		if e.Trigger != "" {
			fmt.Fprintf(&b, "**The trigger.** %s\n\n", strings.TrimSpace(e.Trigger))
		}
		fmt.Fprintf(&b, "**The code.** %s\n\n", strings.TrimSpace(e.Code))
		b.WriteString("| version | run | outcome |\n|---|---|---|\n")
		for _, s := range r.sides() {
			for i, o := range s.Runs {
				fmt.Fprintf(&b, "| %s | %d | %s |\n", s.Version, i+1, o.Summary())
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTable writes the results as lines for a terminal: an entry a line,
// its tallies and its verdict.
func WriteTable(w io.Writer, results []Result) error {
	for _, r := range results {
		also := ""
		for _, s := range r.Also {
			also += fmt.Sprintf(" (beside: %s %s)", s.Version, s.Count())
		}
		if _, err := fmt.Fprintf(w, "%-22s %s %s: %s; %s: %s -> %s%s\n", r.Entry.ID, r.Entry.Library, r.Affected.Version, r.Affected.Count(),
			r.Fixed.Version, r.Fixed.Count(), r.Verdict(), also); err != nil {
			return err
		}
	}
	return nil
}
