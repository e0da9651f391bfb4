package bugs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
)

// ErrBadEntry is wrapped by the error of an entry that does not parse or
// is incomplete, and of an ID no entry has.
var ErrBadEntry = errors.New("bugs: bad entry")

//go:embed entries/*.yaml
var files embed.FS

// Entry is one tracker bug and how lockbench reproduces it.
type Entry struct {
	// ID names the entry: the library and the tracker's number.
	ID      string `yaml:"id"`
	Title   string `yaml:"title"`
	Tracker string `yaml:"tracker"` // the address
	Fix     string `yaml:"fix"`     // the fix's address (a pull request, a commit)
	Library string `yaml:"library"`
	// Driver is the driver whose library the entry runs at each version
	// (drv:DRIVER@VERSION).
	Driver   string `yaml:"driver"`
	Affected string `yaml:"affected"`
	Fixed    string `yaml:"fixed"`
	// FixedDriver, when set, is the fixed side's driver: a bug fixed by an
	// option of the library (a form of its driver) rather than a release,
	// at Fixed, which may then equal Affected.
	FixedDriver string `yaml:"fixed_driver"`
	// Seen are the figures that show the bug in a run: any of them holding
	// on its cell (record thresholds: overlaps>0).
	Seen []string `yaml:"seen"`
	// Predicts says what each side is predicted to do.
	Predicts struct {
		Affected string `yaml:"affected"`
		Fixed    string `yaml:"fixed"`
	} `yaml:"predicts"`
	// Trigger says why the run is what it is; Code what the library's code
	// does at both versions, read in the released packages.
	Trigger string `yaml:"trigger"`
	Code    string `yaml:"code"`
	// Run is the run that triggers the bug, as a scenario file writes one;
	// its variants are the entry's (Variant).
	Run plan.Scenario `yaml:"run"`
	// Also are other variants run on the same trigger as often, beside the
	// two versions (another library with the same fix, a form that should
	// not show the bug): their tallies are reported, and weigh on no
	// verdict.
	Also []string `yaml:"also"`

	seen []record.Threshold
}

// Variant is the entry's driver at version, as --variants takes it.
func (e Entry) Variant(version string) string {
	return plan.DriverPrefix + e.Driver + "@" + version
}

// FixedSide is the fixed side's name in reports (its version, or its
// driver at its version when the fix is an option) and its variant.
func (e Entry) FixedSide() (name, variant string) {
	if e.FixedDriver == "" {
		return e.Fixed, e.Variant(e.Fixed)
	}
	name = e.FixedDriver + "@" + e.Fixed
	return name, plan.DriverPrefix + name
}

// Entries are the catalogue's entries, sorted by ID.
func Entries() ([]Entry, error) {
	names, err := files.ReadDir("entries")
	if err != nil {
		return nil, err
	}
	var all []Entry
	for _, f := range names {
		data, err := files.ReadFile(path.Join("entries", f.Name()))
		if err != nil {
			return nil, err
		}
		e, err := parse(data, f.Name())
		if err != nil {
			return nil, err
		}
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	return all, nil
}

// Select is the entries of ids, in their order; all of them when ids is
// empty. An unknown ID is bad input naming the known ones.
func Select(all []Entry, ids []string) ([]Entry, error) {
	if len(ids) == 0 {
		return all, nil
	}
	var picked []Entry
	for _, id := range ids {
		i := slices.IndexFunc(all, func(e Entry) bool { return e.ID == id })
		if i < 0 {
			var known []string
			for _, e := range all {
				known = append(known, e.ID)
			}
			return nil, inputerr.Errorf(ErrBadEntry, "bugs: unknown entry %q (known: %s)", id, strings.Join(known, ", "))
		}
		picked = append(picked, all[i])
	}
	return picked, nil
}

// parse reads one entry file; unknown fields are errors.
func parse(data []byte, file string) (Entry, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var e Entry
	if err := dec.Decode(&e); err != nil {
		return Entry{}, fmt.Errorf("%w: %s: %w", ErrBadEntry, file, err)
	}
	for _, f := range []struct{ name, value string }{{"id", e.ID}, {"tracker", e.Tracker}, {"library", e.Library},
		{"driver", e.Driver}, {"affected", e.Affected}, {"fixed", e.Fixed}, {"predicts.affected", e.Predicts.Affected},
		{"predicts.fixed", e.Predicts.Fixed}, {"code", e.Code}} {
		if strings.TrimSpace(f.value) == "" {
			return Entry{}, fmt.Errorf("%w: %s: no %s", ErrBadEntry, file, f.name)
		}
	}
	if len(e.Seen) == 0 {
		return Entry{}, fmt.Errorf("%w: %s: no seen (the figures that show the bug: overlaps>0)", ErrBadEntry, file)
	}
	for _, s := range e.Seen {
		t, err := record.ParseThreshold(s)
		if err != nil {
			return Entry{}, fmt.Errorf("%w: %s: seen %q: %w", ErrBadEntry, file, s, err)
		}
		e.seen = append(e.seen, t)
	}
	if len(e.Run.Variants) > 0 {
		return Entry{}, fmt.Errorf("%w: %s: run names variants; the entry's are drv:%s at each version", ErrBadEntry, file, e.Driver)
	}
	for _, v := range e.Also {
		if _, ok := plan.DriverName(v); !ok {
			return Entry{}, fmt.Errorf("%w: %s: also %q: want a driver variant, %sNAME[@VERSION]", ErrBadEntry, file, v, plan.DriverPrefix)
		}
	}
	e.Run.Name = "bug " + e.ID
	return e, nil
}

// SeenIn reports whether the bug shows in c, and which figure says so.
func (e Entry) SeenIn(c *record.Cell) (bool, string) {
	for _, t := range e.seen {
		if ok, v := t.Holds(c); ok {
			return true, fmt.Sprintf("%s (%g)", t.Text, v)
		}
	}
	return false, ""
}
