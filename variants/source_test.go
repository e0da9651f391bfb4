package variants_test

import (
	"regexp"
	"testing"

	"github.com/lockbench/lockbench/variants"
)

// unpublished matches the ways of citing texts a reader cannot find: the
// project's unpublished working notes (its design and seed-text files) and
// the numbered source articles they name (a seed and its number, with or
// without a section; "the seed's" code).
var unpublished = regexp.MustCompile(`(?i)\bseeds?\b|seed\s*\d|DESIGN\.md|SEEDS\.md`)

// TestSourcesArePublished holds every registered variant, those added later
// too, to a Source a reader can look up: a published text with its section,
// a paper or a library, never the project's unpublished notes.
func TestSourcesArePublished(t *testing.T) {
	for _, info := range variants.All() {
		if info.Source == "" {
			t.Errorf("%s: no Source; want the published text (with its section) or library the design comes from", info.Name)
			continue
		}
		if m := unpublished.FindString(info.Source); m != "" {
			t.Errorf("%s: Source %q cites %q, which no reader can find; cite the published text and its section", info.Name, info.Source, m)
		}
	}
}
