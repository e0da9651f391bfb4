package record_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "run.json")
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil { // Save creates no directory but its own default
		t.Fatal(err)
	}
	want := recordtest.Sample(t)
	if err := record.Save(want, path); err != nil {
		t.Fatal(err)
	}
	got, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != want.RunID || got.Cells[0].Histograms != want.Cells[0].Histograms || got.Cells[0].Violations != want.Cells[0].Violations {
		t.Errorf("round trip changed the record")
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestLoadRejectsBadRecords(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(func() string {
		p := filepath.Join(dir, "good.json")
		if err := record.Save(recordtest.Sample(t), p); err != nil {
			t.Fatal(err)
		}
		return p
	}())
	schema := fmt.Sprintf(`"schema": %d`, record.SchemaVersion)
	for name, content := range map[string]string{
		"empty":     "",
		"not json":  "hello",
		"truncated": string(good[:len(good)/2]),
		"schema":    strings.Replace(string(good), schema, `"schema": 99`, 1),
		"older":     strings.Replace(string(good), schema, `"schema": 1`, 1),
		"other":     `{` + schema + `, "tool": "vegeta"}`,
		"unknown":   strings.Replace(string(good), schema, schema+`, "surprise": true`, 1),
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := record.Load(p); !errors.Is(err, record.ErrBadRecord) {
			t.Errorf("%s: error %v, want ErrBadRecord", name, err)
		}
	}
}

func TestRenderFormats(t *testing.T) {
	rec := recordtest.Sample(t)
	rec.Interrupted = true
	rec.Topology.Representative = false
	for _, format := range render.Formats {
		var buf bytes.Buffer
		if err := render.Render(&buf, rec, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := buf.String()
		if !strings.Contains(out, "lua-release") {
			t.Errorf("%s: no variant in output:\n%s", format, out)
		}
		switch format {
		case "table", "markdown":
			for _, want := range []string{"500", "overlaps", "INTERRUPTED", "not representative"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s: output lacks %q:\n%s", format, want, out)
				}
			}
		case "csv":
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(rows) != 2 || len(rows[0]) != len(rows[1]) {
				t.Errorf("csv: %v, rows %d", err, len(rows))
			}
		}
	}
	if err := render.Render(&bytes.Buffer{}, rec, "xml"); !errors.Is(err, render.ErrUnknownFormat) {
		t.Errorf("xml: %v", err)
	}
}
