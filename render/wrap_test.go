package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// Wrapped lines keep to the width, counting a wide character as two, and
// keep every word.
func TestWrap(t *testing.T) {
	text := "【Redis应用】分布式锁 §1.3, §1.6; Kleppmann, \"How to do distributed locking\" (2016): Protecting a resource"
	for _, width := range []int{40, 60, 100} {
		out := Labelled("  source:", text, 12, width)
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := twwidth.Width(line); w > width {
				t.Errorf("width %d: %d columns: %q", width, w, line)
			}
			if !strings.HasPrefix(line, "  source:   ") && !strings.HasPrefix(line, strings.Repeat(" ", 12)) {
				t.Errorf("width %d: %q is not under the label", width, line)
			}
		}
		if got := strings.Join(strings.Fields(out), " "); got != "source: "+text {
			t.Errorf("width %d: words changed: %q", width, got)
		}
	}
}

func ExampleLabelled() {
	fmt.Print(Labelled("long-hold", "the work outlasts the TTL; the locks without renewal overlap", 11, 40))
	// Output:
	// long-hold  the work outlasts the TTL;
	//            the locks without renewal
	//            overlap
}
