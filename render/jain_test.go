package render_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// Jain's index of a cell in which no client acquired is undefined, with
// one value wherever it shows: "-" in the table, absent from the JSON,
// empty in the CSV. The cell is measured as a run measures it (recorders
// that saw only busy attempts, four clients with no acquisition), and a
// record that wrote the undefined index as 0 reads the same.
func TestJainUndefinedInTableJSONAndCSV(t *testing.T) {
	now := time.Now()
	busy := metrics.NewRecorder(now)
	for range 10 {
		busy.Add(now, metrics.Attempt)
		busy.Add(now, metrics.Busy)
	}
	out := metrics.CellSummary{Measured: metrics.Merge([]*metrics.Recorder{busy}, []int64{0, 0, 0, 0}),
		Warmup: metrics.Merge(nil, nil), Handoff: oracle.New(1, 1).Handoff(), Elapsed: time.Second}
	cell, err := record.NewCell(out, oracle.Report{})
	if err != nil {
		t.Fatal(err)
	}
	cell.Variant, cell.Client, cell.Clients, cell.Topology, cell.Limit = "lua-release", "rueidis", 4, "local", 1
	measured := &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: "idle", Cells: []record.Cell{cell}}

	var stored bytes.Buffer
	if err := render.Render(&stored, measured, "json"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored.String(), `"jain"`) {
		t.Errorf("JSON of a cell without acquisitions has a jain:\n%s", stored.String())
	}
	var old map[string]any // as a record that wrote the index as 0
	if err := json.Unmarshal(stored.Bytes(), &old); err != nil {
		t.Fatal(err)
	}
	old["cells"].([]any)[0].(map[string]any)["fairness"].(map[string]any)["jain"] = 0
	oldJSON, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := record.Decode("old.json", oldJSON)
	if err != nil {
		t.Fatal(err)
	}

	for name, rec := range map[string]*record.Record{"measured": measured, "stored as 0": loaded} {
		header, body := render.Table(rec)
		if i := slices.Index(header, "jain"); i < 0 || body[0][i] != "-" {
			t.Errorf("%s: table %q %q; want jain -", name, header, body)
		}
		var text bytes.Buffer
		if err := render.Render(&text, rec, "csv"); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&text).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("%s: csv: %v, %d rows", name, err, len(rows))
		}
		if i := slices.Index(rows[0], "jain"); i < 0 || rows[1][i] != "" {
			t.Errorf("%s: csv header %v, row %v; want an empty jain", name, rows[0], rows[1])
		}
	}
}
