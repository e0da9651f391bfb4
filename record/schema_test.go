package record_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/record/recordtest"
	"github.com/lockbench/lockbench/render"
)

// asSchema2 rewrites a record's JSON as lockbench wrote schema 2: the node
// plan of a sweep under "shards", and no cell saying "fencing".
func asSchema2(t *testing.T, data []byte) []byte {
	t.Helper()
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	rec["schema"] = 2
	// Schema 2 always wrote the TTL (10s by default) and said when --ttl
	// gave it.
	if cfg := rec["config"].(map[string]any); cfg["ttl_ns"] != nil {
		cfg["ttl_given"] = true
	} else {
		cfg["ttl_ns"] = 10e9
	}
	for _, c := range rec["cells"].([]any) {
		delete(c.(map[string]any), "fencing")
	}
	if sweep, ok := rec["sweep"].(map[string]any); ok {
		for _, v := range sweep["variants"].([]any) {
			v := v.(map[string]any)
			if plan, ok := v["nodes"].(map[string]any); ok {
				plan["per_shard"], plan["shards"] = plan["per_node"], plan["nodes"]
				delete(plan, "per_node")
				delete(plan, "nodes")
				v["shards"] = plan
				delete(v, "nodes")
			}
			if why, ok := v["nodes_error"]; ok {
				v["shards_error"] = why
				delete(v, "nodes_error")
			}
		}
	}
	out, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A schema-2 record decodes into this schema: the sweep's shard plan is
// its node plan, and a cell of the variant that handed out fencing tokens
// then says so.
func TestDecodeMigratesSchema2(t *testing.T) {
	want := goldenFullRecord()
	current, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	old := asSchema2(t, current)
	if bytes.Contains(old, []byte(`"per_node"`)) || !bytes.Contains(old, []byte(`"shards_error"`)) || bytes.Contains(old, []byte(`"fencing"`)) {
		t.Fatalf("not a schema-2 record: %s", old)
	}
	got, err := record.Decode("old.json", old)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		gotJSON, _ := json.Marshal(got)
		t.Errorf("schema 2 migrated to\n%s\nwant\n%s", gotJSON, current)
	}

	// A TTL schema 2 wrote without ttl_given was the default: schema 3
	// writes none.
	defaulted := goldenFullRecord()
	defaulted.Config.TTL = 0
	data, _ := json.Marshal(defaulted)
	if got, err := record.Decode("default-ttl.json", asSchema2(t, data)); err != nil || got.Config.TTL != 0 {
		t.Errorf("schema-2 record with the default TTL: TTL %v, %v; want 0 (each variant's default)", got != nil && got.Config.TTL != 0, err)
	}

	// A variant that hands out no tokens stays without the fence columns.
	plain := goldenFullRecord()
	plain.Cells[0].Variant, plain.Cells[0].Fencing = "lua-release", false
	data, _ = json.Marshal(plain)
	if got, err := record.Decode("plain.json", asSchema2(t, data)); err != nil || got.Cells[0].Fencing {
		t.Errorf("schema-2 lua-release cell: fencing %v, %v; want none", got != nil && got.Cells[0].Fencing, err)
	}
}

// A schema-2 record of the fenced variant without a stale write shows the
// fence columns, as it did when the renderer asked the variant registry.
func TestSchema2FencedShowsFenceColumns(t *testing.T) {
	rec := recordtest.Sample(t)
	rec.Cells[0].Variant = "fenced"
	data, _ := json.Marshal(rec)
	got, err := record.Decode("fenced.json", asSchema2(t, data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := render.Render(&out, got, "table"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "stale wr") || !strings.Contains(out.String(), "rejected wr") {
		t.Errorf("no fence columns for a schema-2 fenced record:\n%s", out.String())
	}
}

// The committed baseline (written in schema 2) loads in this schema and
// saves as it.
func TestBaselineLoads(t *testing.T) {
	path := filepath.Join("..", "results", "baselines", "regress.json")
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Schema != record.SchemaVersion || len(rec.Cells) == 0 || rec.Cells[0].Histograms.Acquire == "" || rec.Config.Workload.Hold != "1ms" {
		t.Fatalf("baseline: schema %d, %d cells, config %+v", rec.Schema, len(rec.Cells), rec.Config)
	}
	saved := filepath.Join(t.TempDir(), "baseline.json")
	if err := record.Save(rec, saved); err != nil {
		t.Fatal(err)
	}
	again, err := record.Load(saved)
	if err != nil || !reflect.DeepEqual(again, rec) {
		t.Errorf("the migrated baseline does not save and load as it is: %v", err)
	}
}

// Schemas Decode does not know are refused in one line that names the
// file, the schema and the ones it reads; a schema-2 record using a name
// of schema 3 is refused too.
func TestDecodeRefusesOtherSchemas(t *testing.T) {
	good, err := json.Marshal(recordtest.Sample(t))
	if err != nil {
		t.Fatal(err)
	}
	current := fmt.Sprintf(`"schema":%d`, record.SchemaVersion)
	for _, schema := range []int{0, 1, record.SchemaVersion + 1, 99} {
		data := bytes.Replace(good, []byte(current), fmt.Appendf(nil, `"schema":%d`, schema), 1)
		_, err := record.Decode("rec.json", data)
		if !errors.Is(err, record.ErrBadRecord) {
			t.Fatalf("schema %d: %v, want ErrBadRecord", schema, err)
		}
		msg := err.Error()
		for _, want := range []string{"rec.json: ", fmt.Sprintf("schema %d ", schema), "reads schema 2 and 3"} {
			if !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
				t.Errorf("schema %d: error %q; want one line with %q", schema, msg, want)
			}
		}
	}
	mixed := []byte(`{"schema":2,"tool":"lockbench","sweep":{"variants":[{"variant":"x","nodes_error":"none"}]}}`)
	if _, err := record.Decode("mixed.json", mixed); !errors.Is(err, record.ErrBadRecord) || !strings.Contains(err.Error(), `"nodes_error"`) {
		t.Errorf("schema 2 with schema 3's nodes_error: %v, want ErrBadRecord naming the field", err)
	}
}
