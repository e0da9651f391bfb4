package render

import (
	"slices"
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

// A driver cell whose processes left requests unanswered says how many,
// and which process left them.
func TestUnansweredNote(t *testing.T) {
	d := &record.Driver{Name: "mute", Command: []string{"./mute"}, Library: "mute", Version: "0", Language: "go", Procs: 2,
		Unanswered: []record.UnansweredRequests{
			{Process: 1, PID: 4242, Requests: 1, ByOp: map[string]int{"acquire": 1}},
			{Process: 2, PID: 4243, Requests: 3, ByOp: map[string]int{"acquire": 1, "release": 2}, Answered: 7},
		}}
	rec := &record.Record{Cells: []record.Cell{{Variant: "drv:mute", Clients: 2, Driver: d}}}
	want := "drv:mute, 2 clients: 4 requests unanswered at the cell's end: driver-1 pid 4242: 1 acquire (0 answered), " +
		"driver-2 pid 4243: 1 acquire, 2 release (7 answered)"
	if notes := Notes(rec); !slices.Contains(notes, want) {
		t.Errorf("notes %q\nwant among them %q", notes, want)
	}
	// A busy driver's acquires still waiting on held locks at the end are
	// no news: every process answered, and the cell acquired.
	busy := *d
	busy.Unanswered = []record.UnansweredRequests{{Process: 1, PID: 4242, Requests: 3, ByOp: map[string]int{"acquire": 3}, Answered: 1668}}
	rec = &record.Record{Cells: []record.Cell{{Variant: "drv:busy", Clients: 4, Acquisitions: 1665, Driver: &busy}}}
	for _, n := range Notes(rec) {
		if strings.Contains(n, "unanswered") {
			t.Errorf("a busy driver's waiting acquires are noted: %q", n)
		}
	}
}
