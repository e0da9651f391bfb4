// Command flakytests reads the test events of a run through gotestsum with
// --rerun-fails (its --jsonfile: go test -json's events of the first run, then
// of the reruns) and prints, one a line,
//
//	flaky: PKG TEST
//
// for every test that failed and then passed on its rerun, the deepest subtest
// only (its parent failed and passed with it), and
//
//	failed outside any test: PKG
//
// for a package whose test binary failed in a run where none of its tests did:
// init, TestMain (lockbench's goroutine-leak check) or the build. Such a
// failure is never retried: gotestsum's rerun of it runs no test at all, and
// passes. The exit status is 1 when there is such a package, 2 when the events
// cannot be read; scripts/test-rerun.sh runs it after gotestsum.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "flakytests:", err)
		if errors.Is(err, errOutsideTest) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

// errOutsideTest is returned when a package failed outside any of its tests.
var errOutsideTest = errors.New("a package failed outside its tests (init, TestMain, the build): its rerun runs no test, so the failure stands")

// event is the part of a go test -json event (cmd/test2json) read here.
type event struct {
	Action  string
	Package string
	Test    string
}

// testID names one test of one package.
type testID struct{ pkg, test string }

// report is what the events of a run say.
type report struct {
	flaky         []testID // tests that failed, then passed: sorted, parents dropped
	outsideFailed []string // packages that failed outside any test, sorted
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	in := stdin
	switch len(args) {
	case 0:
	case 1:
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	default:
		return fmt.Errorf("usage: flakytests [EVENTS.json] (gotestsum's --jsonfile; standard input without it)")
	}
	r, err := read(in)
	if err != nil {
		return err
	}
	for _, t := range r.flaky {
		fmt.Fprintf(stdout, "flaky: %s %s\n", t.pkg, t.test)
	}
	for _, pkg := range r.outsideFailed {
		fmt.Fprintf(stdout, "failed outside any test: %s\n", pkg)
	}
	if len(r.outsideFailed) > 0 {
		return errOutsideTest
	}
	return nil
}

// read reads go test -json events, those of the reruns after the first run's.
func read(in io.Reader) (report, error) {
	var (
		sawFail = map[testID]bool{}
		last    = map[testID]string{} // each test's last pass, fail or skip
		// failedTests counts the failed tests of each package's current run;
		// a run ends with the package's own pass, fail or skip.
		failedTests = map[string]int{}
		outside     = map[string]bool{}
	)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 || sc.Bytes()[0] != '{' {
			continue // not an event: go test's own output, kept as it came
		}
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return report{}, fmt.Errorf("line %d: %w", line, err)
		}
		switch e.Action {
		case "pass", "fail", "skip":
		default:
			continue
		}
		if e.Test == "" {
			if e.Action == "fail" && failedTests[e.Package] == 0 {
				outside[e.Package] = true
			}
			delete(failedTests, e.Package)
			continue
		}
		id := testID{e.Package, e.Test}
		last[id] = e.Action
		if e.Action == "fail" {
			sawFail[id] = true
			failedTests[e.Package]++
		}
	}
	if err := sc.Err(); err != nil {
		return report{}, err
	}

	var r report
	for id := range sawFail {
		if last[id] == "pass" {
			r.flaky = append(r.flaky, id)
		}
	}
	sort.Slice(r.flaky, func(i, j int) bool {
		a, b := r.flaky[i], r.flaky[j]
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		return a.test < b.test
	})
	// A parent failed and passed with its subtest: name the subtest alone.
	kept := r.flaky[:0]
	for _, t := range r.flaky {
		if !hasSubtest(r.flaky, t) {
			kept = append(kept, t)
		}
	}
	r.flaky = kept
	for pkg := range outside {
		r.outsideFailed = append(r.outsideFailed, pkg)
	}
	sort.Strings(r.outsideFailed)
	return r, nil
}

// hasSubtest reports whether tests hold a subtest of t.
func hasSubtest(tests []testID, t testID) bool {
	for _, u := range tests {
		if u.pkg == t.pkg && strings.HasPrefix(u.test, t.test+"/") {
			return true
		}
	}
	return false
}
