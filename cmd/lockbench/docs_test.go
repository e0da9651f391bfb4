package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
)

// The README is a quick start; the rest lives in docs/.
const readmeMaxLines = 300

var (
	// markdownLink is an inline link or image: [text](target) or
	// [text](target "title").
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	heading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

func TestReadmeIsAQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readme, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail to a page in docs/", n, readmeMaxLines)
	}
}

// Every relative link in README.md and docs/*.md reaches a file that
// exists, and every #anchor a heading of the page it names.
func TestDocLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md")
	if len(pages) < 2 {
		t.Fatalf("found %v: no docs/*.md", pages)
	}
	for _, page := range pages {
		for _, problem := range brokenLinks(t, page) {
			t.Error(problem)
		}
	}
}

// The link check finds what it is for: a missing file, a missing
// heading in another page, a missing heading in the same page.
func TestDocLinkCheckFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("other.md", "# Other\n\n## Waking waiters: `notify`\n")
	write("page.md", "# Page\n\n## Here\n\n"+
		"[ok](other.md#waking-waiters-notify) [ok](#here) [ok](https://example.com/x#y) `[not a link](gone.md)`\n"+
		"[missing file](gone.md) [missing anchor](other.md#waking-waiters) [missing here](#there)\n"+
		"```\n[in code](gone-too.md)\n```\n")
	problems := brokenLinks(t, filepath.Join(dir, "page.md"))
	if len(problems) != 3 {
		t.Fatalf("got %d problems, want 3 (gone.md, other.md#waking-waiters, #there):\n%s", len(problems), strings.Join(problems, "\n"))
	}
	for i, want := range []string{"gone.md", "other.md#waking-waiters", "#there"} {
		if !strings.Contains(problems[i], want) {
			t.Errorf("problem %d = %q, want it to name %s", i, problems[i], want)
		}
	}
}

func TestHeadingAnchor(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Two commands", "two-commands"},
		{"Waking waiters: `notify`", "waking-waiters-notify"},
		{"The harness's own cost (Go benchmarks, `make bench`)", "the-harnesss-own-cost-go-benchmarks-make-bench"},
		{"What each survives (from docs/findings.md)", "what-each-survives-from-docsfindingsmd"},
		{"Report: `lockbench report`", "report-lockbench-report"},
		{"snake_case and -dashes-", "snake_case-and--dashes-"},
	} {
		if got := headingAnchor(tc.heading); got != tc.want {
			t.Errorf("headingAnchor(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// Every `lockbench run` line in the README's code blocks parses as run
// flags: the quick start's commands work as printed.
func TestReadmeRunLinesParse(t *testing.T) {
	// The README runs the repository's drivers: go-lua built, the
	// library drivers' folders as they are (their runtimes need only be
	// on PATH for a plan to accept them).
	drivers := drivertest.DriversDir(t)
	for _, folder := range []string{"redis-py", "node-redlock", "sesame-redlock", "redis-py-8", "python-redis-lock", "pottery-redlock", "redisson"} {
		abs, err := filepath.Abs(filepath.Join("../../drivers", folder))
		if err == nil {
			err = os.Symlink(abs, filepath.Join(drivers, folder))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(driver.DirEnv, drivers)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range codeLines(string(readme)) {
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		rest, ok := strings.CutPrefix(line, "lockbench run ")
		if !ok {
			rest, ok = strings.CutPrefix(line, "./bin/lockbench run ")
		}
		if !ok {
			continue
		}
		n++
		if _, _, _, err := parseRun(shellWords(rest), io.Discard); err != nil {
			t.Errorf("README: %q does not parse: %v", line, err)
		}
	}
	if n == 0 {
		t.Error("README shows no `lockbench run` line")
	}
}

// brokenLinks lists the links of a markdown page that do not resolve.
func brokenLinks(t *testing.T, page string) []string {
	t.Helper()
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, line := range proseLines(string(text)) {
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
				if _, err := os.Stat(file); err != nil {
					problems = append(problems, fmt.Sprintf("%s: link %s: no such file", page, target))
					continue
				}
			}
			if anchor == "" {
				continue
			}
			anchors, err := pageAnchors(file)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: link %s: %v", page, target, err))
			} else if !anchors[anchor] {
				problems = append(problems, fmt.Sprintf("%s: link %s: %s has no heading with that anchor", page, target, file))
			}
		}
	}
	return problems
}

// pageAnchors are the anchors GitHub gives a page's headings; a repeated
// heading gets -1, -2, ... after the first.
func pageAnchors(file string) (map[string]bool, error) {
	if !strings.HasSuffix(file, ".md") {
		return nil, fmt.Errorf("an anchor into %s, which is not a markdown page", file)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(string(text)) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := headingAnchor(m[1])
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors, nil
}

// headingAnchor is GitHub's anchor of a heading: lowercase, punctuation
// other than - and _ dropped, spaces made -.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// proseLines are a page's lines outside fenced code blocks.
func proseLines(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// codeLines are a page's lines inside fenced code blocks.
func codeLines(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			out = append(out, line)
		}
	}
	return out
}

// shellWords splits a command line the way a shell would for the README's
// commands: on spaces, with '...' and "..." quoting; a # outside quotes
// starts a comment.
func shellWords(line string) []string {
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '#' && !inWord:
			return words
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}
