package linearize

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/history"
)

func readFixture(t testing.TB, name string) *history.History {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := history.ReadJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return h
}

// The fixtures and what each view must say of them; processes are the
// clients the offending window must name (nil: linearizable).
func TestFixtures(t *testing.T) {
	cs, leases := history.CriticalSections, history.Leases
	tests := []struct {
		fixture   string
		view      history.View
		limit     int // 0: the header's
		processes []int
	}{
		{"mutex-overlap.jsonl", cs, 0, []int{0, 1}},
		{"mutex-overlap.jsonl", leases, 0, []int{0, 1}},
		{"mutex-ok.jsonl", cs, 0, nil},
		{"mutex-ok.jsonl", leases, 0, nil},
		{"info-exit.jsonl", cs, 0, nil},
		{"info-exit.jsonl", leases, 0, nil},
		{"info-exit-violation.jsonl", cs, 0, []int{0, 1}},
		{"info-acquire.jsonl", cs, 0, nil},
		{"info-acquire.jsonl", leases, 0, nil},
		{"lease-expired.jsonl", cs, 0, nil},
		{"lease-expired.jsonl", leases, 0, nil},
		{"pause-overlap.jsonl", cs, 0, []int{0, 1}},
		{"pause-overlap.jsonl", leases, 0, nil},
		{"semaphore-within.jsonl", cs, 0, nil},
		{"semaphore-within.jsonl", leases, 0, nil},
		{"semaphore-within.jsonl", cs, 1, []int{1, 2}}, // p1 and p2 span less than p0 and p1
		{"semaphore-over.jsonl", cs, 0, []int{0, 1, 2}},
		{"semaphore-over.jsonl", leases, 0, []int{0, 1, 2}},
		{"semaphore-over.jsonl", cs, 3, nil},
		{"two-keys.jsonl", cs, 0, nil},
		{"two-keys.jsonl", leases, 0, nil},
		// An ok extend needs its lease held: by a client whose acquire
		// failed, or after the release, it is the lock vouching for a
		// lease it did not grant; the critical sections do not see it.
		{"extend-not-held.jsonl", cs, 0, nil},
		{"extend-not-held.jsonl", leases, 0, []int{1}},
		{"extend-after-release.jsonl", cs, 0, nil},
		{"extend-after-release.jsonl", leases, 0, []int{0}},
		{"extend-held.jsonl", cs, 0, nil},
		{"extend-held.jsonl", leases, 0, nil},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.fixture, ".jsonl")+"/"+tt.view.String(), func(t *testing.T) {
			res, err := Check(readFixture(t, tt.fixture), Options{View: tt.view, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if tt.processes == nil {
				if res.Verdict != Linearizable {
					t.Fatalf("verdict %q, want linearizable; window %+v", res.Verdict, res.Window)
				}
				if res.Window != nil {
					t.Errorf("a linearizable history has a window: %+v", res.Window)
				}
				return
			}
			if res.Verdict != NotLinearizable {
				t.Fatalf("verdict %q, want not linearizable", res.Verdict)
			}
			w := res.Window
			if w == nil {
				t.Fatal("no window")
			}
			got := slices.Sorted(slices.Values(w.Processes))
			if !slices.Equal(got, tt.processes) {
				t.Errorf("window's processes %v, want %v (ops %v)", got, tt.processes, w.Ops)
			}
			for _, op := range w.Ops {
				if !tt.view.Includes(op.Op) || !slices.Contains(w.Leases, op.Lease) {
					t.Errorf("window op %v is not of the view or not of the window's leases %v", op, w.Leases)
				}
				if op.Call < w.From || (op.Return > w.To && op.Outcome != history.Info) {
					t.Errorf("window op %v outside the window's span [%d, %d]", op, w.From, w.To)
				}
			}
			if len(res.FailingKeys) != 1 || res.FailingKeys[0] != w.Key {
				t.Errorf("failing keys %v, window's key %q", res.FailingKeys, w.Key)
			}
		})
	}
}

// The overlap fixture's window is exactly the two critical sections of
// p0 and p1: their enters and exits, spanning p0's enter to p0's exit.
func TestWindowNamesTheOverlappingOps(t *testing.T) {
	res, err := Check(readFixture(t, "mutex-overlap.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Window
	var names []string
	for _, op := range w.Ops {
		names = append(names, op.String())
	}
	want := []string{
		"p0 enter lockbench:k0 #3-4 ok",
		"p1 enter lockbench:k0 #6-7 ok",
		"p1 exit lockbench:k0 #8-9 ok",
		"p0 exit lockbench:k0 #12-13 ok",
	}
	if !slices.Equal(names, want) {
		t.Errorf("window ops\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if w.From != 110 || w.To != 1010 {
		t.Errorf("window spans [%d, %d], want [110, 1010]", w.From, w.To)
	}
}

// Partitioning by key matters: the two-keys fixture's holders overlap in
// time, so on a single key the same history is not linearizable.
func TestPartitionByKey(t *testing.T) {
	h := readFixture(t, "two-keys.jsonl")
	for i := range h.Events {
		h.Events[i].Key = "lockbench:one"
	}
	res, err := Check(h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != NotLinearizable {
		t.Fatalf("on one key: verdict %q, want not linearizable", res.Verdict)
	}
	if res.Keys != 1 {
		t.Errorf("keys %d, want 1", res.Keys)
	}
	orig, err := Check(readFixture(t, "two-keys.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if orig.Keys != 2 || orig.Verdict != Linearizable {
		t.Errorf("two keys: %d keys, verdict %q; want 2, linearizable", orig.Keys, orig.Verdict)
	}
}

func TestVisualize(t *testing.T) {
	res, err := Check(readFixture(t, "semaphore-over.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "window.html")
	if err := res.Visualize(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<html", "offending window: 3 leases of lockbench:k0", "begin L", "held by L"} {
		if !strings.Contains(page, want) {
			t.Errorf("visualization lacks %q", want)
		}
	}
	ok, err := Check(readFixture(t, "mutex-ok.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ok.Visualize(path); !errors.Is(err, ErrNothingToShow) {
		t.Errorf("Visualize of a linearizable result: %v, want ErrNothingToShow", err)
	}
}

func TestOptionsErrors(t *testing.T) {
	h := readFixture(t, "mutex-ok.jsonl")
	for _, opts := range []Options{{Limit: -1}, {View: history.AllOps}, {Timeout: -1}} {
		if _, err := Check(h, opts); !errors.Is(err, ErrOptions) {
			t.Errorf("Check(%+v): %v, want ErrOptions", opts, err)
		}
	}
}
