package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNoHistory is wrapped by [Files]' errors: a path that is not there, or
// a directory without one history in it.
var ErrNoHistory = errors.New("history: no history")

// The written forms of a cell beside its JSON lines: run --history writes
// CELL.jsonl (what [ReadJSON] reads), CELL.edn ([WriteEDN]) and, for a
// history that is not linearizable, CELL.html (porcupine's drawing).
const (
	extJSON    = ".jsonl"
	extEDN     = ".edn"
	extDrawing = ".html"
)

// Files is the histories to read for paths that name any mix of history
// directories (run --history DIR) and files from one: each directory gives
// its CELL.jsonl files, in name order; a .jsonl or any other file is read
// as given; an EDN file gives the .jsonl beside it, which holds the same
// cell (there is no EDN reader), or is passed over when there is none; a
// drawing (.html) is passed over. Each of those is said in a note of one
// line. Paths are returned once each, in the order first given.
func Files(paths []string) (files, notes []string, err error) {
	seen := map[string]bool{}
	add := func(path string) {
		if clean := filepath.Clean(path); !seen[clean] {
			seen[clean] = true
			files = append(files, path)
		}
	}
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrNoHistory, err)
		}
		if info.IsDir() {
			found, other, err := dirFiles(path)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range found {
				add(f)
			}
			if other > 0 {
				notes = append(notes, fmt.Sprintf("%s: %d files not in JSON lines passed over "+
					"(CELL.edn holds the same cell as CELL.jsonl; CELL.html is a drawing)", path, other))
			}
			continue
		}
		switch ext := filepath.Ext(path); ext {
		case extEDN:
			jsonl := strings.TrimSuffix(path, ext) + extJSON
			if _, err := os.Stat(jsonl); err == nil {
				if !seen[filepath.Clean(jsonl)] {
					notes = append(notes, fmt.Sprintf("%s: EDN passed over; the same cell is checked from %s beside it", path, filepath.Base(jsonl)))
				}
				add(jsonl)
			} else {
				notes = append(notes, fmt.Sprintf("%s: EDN passed over (not read), and there is no %s beside it", path, filepath.Base(jsonl)))
			}
		case extDrawing:
			notes = append(notes, fmt.Sprintf("%s: passed over: a drawing, not a history", path))
		default:
			add(path)
		}
	}
	return files, notes, nil
}

// dirFiles is dir's CELL.jsonl files in name order, and how many other
// files it holds.
func dirFiles(dir string) (found []string, other int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrNoHistory, err)
	}
	for _, e := range entries {
		switch {
		case e.IsDir():
		case filepath.Ext(e.Name()) == extJSON:
			found = append(found, filepath.Join(dir, e.Name()))
		default:
			other++
		}
	}
	if len(found) == 0 {
		return nil, 0, fmt.Errorf("%w: %s holds no CELL%s (run --history DIR writes them)", ErrNoHistory, dir, extJSON)
	}
	sort.Strings(found)
	return found, other, nil
}

// ReadFiles reads the history files at paths with [ReadFile], all of
// them or none: the error names the first path that is no history.
func ReadFiles(paths []string) ([]*History, error) {
	hs := make([]*History, len(paths))
	for i, path := range paths {
		h, err := ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: not a lockbench history: %w", path, err)
		}
		hs[i] = h
	}
	return hs, nil
}

// ReadFile reads the history file at path with [ReadJSON].
func ReadFile(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoHistory, err)
	}
	defer f.Close()
	return ReadJSON(f)
}
