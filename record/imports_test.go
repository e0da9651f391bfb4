package record_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The record stands alone: the packages that read records (measure,
// record, render, compare, report), their tests and the record's test
// helpers (record/recordtest) link no Redis client, no embedded Redis, no
// proxy, and none of the lockbench packages that run a benchmark.
// Comparing two JSON files must not need what produced them, nor testing
// the code that compares them.
func TestRecordReadersImportNoRunner(t *testing.T) {
	const module = "github.com/lockbench/lockbench/"
	readers := []string{module + "measure", module + "record", module + "record/recordtest", module + "render", module + "compare", module + "report"}
	forbidden := []string{
		"github.com/redis/rueidis", "github.com/redis/go-redis", "github.com/go-redsync/redsync", "github.com/bsm/redislock",
		"github.com/alicebob/miniredis", "github.com/Shopify/toxiproxy",
	}
	for _, p := range []string{"variants", "runner", "topologies", "workloads", "faults", "plan", "clients", "witness"} {
		forbidden = append(forbidden, module+p)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("this test runs `go list -deps`: the go command is not on PATH (%v)", err)
	}
	out, err := exec.Command(goTool, append([]string{"list", "-deps", "-test"}, readers...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	var deps []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// A package as its tests build it is listed "PATH [PKG.test]".
		path, _, _ := strings.Cut(line, " ")
		deps = append(deps, path)
	}
	for _, r := range readers {
		if !slices.Contains(deps, r) {
			t.Fatalf("go list -deps -test does not list %s itself:\n%s", r, out)
		}
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("measure, record, render, compare, report or their tests depend on %s: a record must be read without %s", dep, f)
			}
		}
	}
}

// measure is what the measuring side and the record share: it imports the
// standard library only.
func TestMeasureImportsStdlibOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/lockbench/lockbench/measure").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if first, _, _ := strings.Cut(dep, "/"); strings.Contains(first, ".") && dep != "github.com/lockbench/lockbench/measure" {
			t.Errorf("measure depends on %s; it must import the standard library only", dep)
		}
	}
}
