package render

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
)

// A driver cell's notes name its driver, command, library, version and
// processes, and set the library's own acquire time beside lockbench's.
func TestDriverNotes(t *testing.T) {
	d := &record.Driver{Name: "go-lua", Command: []string{"./go-lua"}, Library: "lockbench lua-release", Version: "v1",
		Language: "go 1.26", Procs: 4, LibraryAcquireUS: measure.Latency{P50: 40}}
	rec := &record.Record{Cells: []record.Cell{
		{Variant: "lua-release", Clients: 16, AcquireLatencyUS: measure.Latency{P50: 90}},
		{Variant: "drv:go-lua", Clients: 16, Driver: d, AcquireLatencyUS: measure.Latency{P50: 120}},
		{Variant: "drv:go-lua", Clients: 16, Repetition: 2, Driver: d, AcquireLatencyUS: measure.Latency{P50: 130}},
	}}
	var found []string
	for _, n := range Notes(rec) {
		if strings.HasPrefix(n, "drv:") {
			found = append(found, n)
		}
	}
	want := `drv:go-lua: driver go-lua, lockbench lua-release v1 (go 1.26), command "./go-lua", 4 processes per cell; ` +
		`16 clients: acquire p50 ` + record.FormatMicros(40) + ` in the library, ` + record.FormatMicros(120) + ` as lockbench timed it`
	if len(found) != 1 || found[0] != want {
		t.Errorf("driver notes %q\nwant %q", found, want)
	}
}
