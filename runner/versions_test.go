package runner_test

import (
	"testing"
)

// The version axis end to end: one plan with redis-py 8.1.0 (the folder's
// pinned venv) and 8.2.0 (installed from PyPI into the user's cache on
// first use, reused after), a row each, each cell run by the version it
// names and keeping exclusion.
func TestDriverVersionsSideBySide(t *testing.T) {
	t.Parallel() // on a redis-server of its own
	cells := runLibraries(t, "baseline", []string{"drv:redis-py-8", "drv:redis-py-8@8.2.0", "drv:redis-py@8.1.0"}, handovers())
	for variant, version := range map[string]string{"drv:redis-py-8": "8.1.0", "drv:redis-py-8@8.2.0": "8.2.0", "drv:redis-py@8.1.0": "8.1.0"} {
		c, ok := cells[variant]
		switch {
		case !ok:
			t.Errorf("no cell %s among %d", variant, len(cells))
		case c.Driver == nil || c.Driver.Version != version:
			t.Errorf("%s: driver %+v, want redis-py %s", variant, c.Driver, version)
		case c.Acquisitions == 0 || c.Violations.Overlaps != 0:
			t.Errorf("%s: %d acquisitions, %d overlaps; want acquisitions and none", variant, c.Acquisitions, c.Violations.Overlaps)
		}
	}
}
