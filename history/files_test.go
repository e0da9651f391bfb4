package history

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Files takes a history directory or any mix of its files: the JSON lines
// of each cell once, EDN standing for the JSON lines beside it, drawings
// passed over, with a note for each thing not read as given.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a-c1.jsonl", "a-c1.edn", "a-c1.html", "b-c1.jsonl", "b-c1.edn", "lone.edn"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := func(names ...string) []string {
		var paths []string
		for _, n := range names {
			paths = append(paths, filepath.Join(dir, n))
		}
		return paths
	}
	for _, tc := range []struct {
		name  string
		paths []string
		want  []string
		notes int
	}{
		{"directory", []string{dir}, in("a-c1.jsonl", "b-c1.jsonl"), 1},
		{"glob", in("a-c1.edn", "a-c1.html", "a-c1.jsonl", "b-c1.edn", "b-c1.jsonl"), in("a-c1.jsonl", "b-c1.jsonl"), 3},
		{"EDN alone", in("b-c1.edn"), in("b-c1.jsonl"), 1},
		{"EDN without JSON lines", in("lone.edn"), nil, 1},
		{"directory and its file", append([]string{dir}, in("b-c1.jsonl")...), in("a-c1.jsonl", "b-c1.jsonl"), 1},
		{"other files as given", in("a-c1.jsonl", "x.json"), nil, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, notes, err := Files(tc.paths)
			if tc.notes < 0 {
				if !errors.Is(err, ErrNoHistory) {
					t.Fatalf("missing file: %v, want ErrNoHistory", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(files, tc.want) || len(notes) != tc.notes {
				t.Errorf("Files = %v, %q, %v; want %v with %d notes", files, notes, err, tc.want, tc.notes)
			}
			for _, n := range notes {
				if strings.Contains(n, "\n") {
					t.Errorf("note of more than one line: %q", n)
				}
			}
		})
	}
	if _, _, err := Files([]string{t.TempDir()}); !errors.Is(err, ErrNoHistory) {
		t.Errorf("empty directory: %v, want ErrNoHistory", err)
	}
}
