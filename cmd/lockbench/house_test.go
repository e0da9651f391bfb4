package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The repository's root, from this package's directory.
const repoRoot = "../.."

// maxCLILines is how many lines of non-test code the CLI may hold: it
// parses flags, calls library packages and prints.
const maxCLILines = 2500

// repoFiles calls fn with the path and text of every file below the root
// whose name ends in one of exts, outside .git and results/runs.
func repoFiles(t *testing.T, fn func(path, text string), exts ...string) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || path == filepath.Join(repoRoot, "results", "runs") {
				return filepath.SkipDir
			}
			return nil
		}
		for _, ext := range exts {
			if strings.HasSuffix(path, ext) {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				fn(path, string(data))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The CLI holds no library code: it stays small, and it parses no
// redis-benchmark output, computes no median, keeps no memory table of
// variants and reads nothing in /proc.
func TestCLIIsThin(t *testing.T) {
	library := map[string]*regexp.Regexp{
		"a /proc reader":                    regexp.MustCompile(`"/proc`),
		"a CSV parser (redis-benchmark's)":  regexp.MustCompile(`"encoding/csv"`),
		"a median":                          regexp.MustCompile(`(?i)func \w*median`),
		"a memory table keyed by a variant": regexp.MustCompile(`"(notify|wait-replicas|rueidislock|redlock)":\s*\{`),
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(data), "\n")
		for what, re := range library {
			if re.Match(data) {
				t.Errorf("%s holds %s: it belongs in a library package", f, what)
			}
		}
	}
	if lines > maxCLILines {
		t.Errorf("cmd/lockbench has %d lines of non-test code, at most %d: move library code out of the CLI", lines, maxCLILines)
	}
}

// Every source the code and docs cite is a published text: none names the
// project's private notes or their file names.
func TestCitationsArePublished(t *testing.T) {
	t.Parallel() // reads the tree: beside the other parallel tests.
	unpublished := regexp.MustCompile(`seed` + ` 0|DESIGN` + `\.md|SEEDS` + `\.md`)
	repoFiles(t, func(path, text string) {
		if loc := unpublished.FindStringIndex(text); loc != nil {
			line := strings.Count(text[:loc[0]], "\n") + 1
			t.Errorf("%s:%d cites %q, which no reader can find: cite a published text and its section", path, line, text[loc[0]:loc[1]])
		}
	}, ".go", ".md")
}

// The figures the record shares with the measuring side are defined once.
func TestRecordTypesDefinedOnce(t *testing.T) {
	for _, decl := range []string{"type Fairness struct", "type Latency struct", "type ErrorCount struct", "type Second struct"} {
		var where []string
		repoFiles(t, func(path, text string) {
			if strings.Contains(text, decl+" {") {
				where = append(where, path)
			}
		}, ".go")
		if len(where) != 1 {
			t.Errorf("%q is defined in %d places, want 1: %v", decl, len(where), where)
		}
	}
}

// docs/architecture.md names every top-level package.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sources, _ := filepath.Glob(filepath.Join(repoRoot, e.Name(), "*.go"))
		if len(sources) == 0 {
			continue
		}
		if !strings.Contains(string(doc), "`"+e.Name()+"`") {
			t.Errorf("docs/architecture.md does not name package %s: add it to the import graph and the layout", e.Name())
		}
	}
}
