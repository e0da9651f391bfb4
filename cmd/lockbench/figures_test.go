package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

var (
	// ratioFigure is a measured ratio as the README gives one: 1.35× or
	// 1.35–1.37×.
	ratioFigure = regexp.MustCompile(`\d+(\.\d+)?(–\d+(\.\d+)?)?×`)
	// commandSpan is a lockbench command quoted in prose.
	commandSpan = regexp.MustCompile("`lockbench [a-z]+[^`]*`")
	// dated is when a figure was measured: 3 December 2026, or 2026-12-03.
	dated = regexp.MustCompile(`\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) 20\d\d|20\d\d-\d\d-\d\d`)
)

// unsourcedFigures are the blocks of a markdown page with a ratio figure
// (1.35×) that is not next to the command that produced it: a fenced
// block must begin with the command ($ lockbench ...), a paragraph must
// quote it (`lockbench ...`) and say when it ran.
func unsourcedFigures(text string) []string {
	var bad []string
	var block []string
	fenced := false
	flush := func() {
		joined := strings.Join(block, "\n")
		defer func() { block = nil }()
		if !ratioFigure.MatchString(joined) {
			return
		}
		if fenced {
			if len(block) == 0 || !strings.HasPrefix(strings.TrimSpace(block[0]), "$ lockbench ") {
				bad = append(bad, joined)
			}
			return
		}
		if !commandSpan.MatchString(joined) || !dated.MatchString(joined) {
			bad = append(bad, joined)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "```"):
			flush()
			fenced = !fenced
		case !fenced && strings.TrimSpace(line) == "":
			flush()
		default:
			block = append(block, line)
		}
	}
	flush()
	return bad
}

// Every ratio the README quotes (the calibration's) stands next to the
// command that produced it, so that a reader can run it and compare: in
// the command's output block, or in a paragraph that names the command
// and the date. A figure moved away from its command fails.
func TestReadmeFiguresNextToTheirCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range unsourcedFigures(string(readme)) {
		t.Errorf("README: figures without the command that produced them (and, in prose, when):\n%s", block)
	}
	for _, tc := range []struct {
		name, text string
		bad        int
	}{
		{"output block", "```\n$ lockbench calibrate --pairs 5\nrueidis: 1.37× redis-benchmark's\n```\n", 0},
		{"block without its command", "```\nrueidis: 1.37× redis-benchmark's\n```\n", 1},
		{"prose with command and date", "On 3 December 2026 `lockbench calibrate --pairs 5` gave\n1.35–2.64×.\n", 0},
		{"prose without a date", "`lockbench calibrate --pairs 5` gave 1.35×.\n", 1},
		{"prose without a command", "On 3 December 2026 rueidis made 1.87×.\n\n`lockbench calibrate`, 2026-12-03\n", 1},
		{"no figure", "lockbench is fast.\n", 0},
	} {
		if got := unsourcedFigures(tc.text); len(got) != tc.bad {
			t.Errorf("%s: %d blocks flagged (%q), want %d", tc.name, len(got), got, tc.bad)
		}
	}
}
