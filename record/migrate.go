package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// readable names the schema versions Decode reads, for its refusal.
const readable = "2 and 3"

// migrations turn a record of an older schema version into this
// version's JSON, by version.
var migrations = map[int]func([]byte) ([]byte, error){2: migrate2}

// schema2Fencing are the variants that handed out fencing tokens when
// lockbench wrote schema 2, whose cells did not say so.
var schema2Fencing = []string{"fenced"}

// migrate2 turns a schema-2 record into schema 3. Schema 3 named the
// capacity plan of a sweep for what it counts, Redis nodes (masters):
// a sweep variant's "shards" and "shards_error" became "nodes" and
// "nodes_error", and the plan's "per_shard" and "shards" became
// "per_node" and "nodes" ("shard" is only --shard's). And a cell says
// whether its variant hands out fencing tokens ("fencing"), which
// schema 2 left to the variant registry of the reader. And the plan's
// TTL is written only when the run gave one (schema 2's "ttl_given"). Numbers pass
// through as they were written. A name schema 2 did not have is refused,
// as schema 2's reader refused it.
func migrate2(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, errors.New("the record is null")
	}
	rec["schema"] = SchemaVersion
	if sweep, ok := rec["sweep"].(map[string]any); ok {
		for _, v := range objects(sweep["variants"]) {
			if err := rename(v, "shards", "nodes"); err != nil {
				return nil, err
			}
			if err := rename(v, "shards_error", "nodes_error"); err != nil {
				return nil, err
			}
			if plan, ok := v["nodes"].(map[string]any); ok {
				if err := rename(plan, "per_shard", "per_node"); err != nil {
					return nil, err
				}
				if err := rename(plan, "shards", "nodes"); err != nil {
					return nil, err
				}
			}
		}
	}
	if cfg, ok := rec["config"].(map[string]any); ok {
		// Schema 2 always wrote the TTL, and "ttl_given" when --ttl gave
		// it; schema 3 writes a TTL only when one was given.
		if given, _ := cfg["ttl_given"].(bool); !given {
			delete(cfg, "ttl_ns")
		}
		delete(cfg, "ttl_given")
	}
	for _, c := range objects(rec["cells"]) {
		if _, set := c["fencing"]; set {
			return nil, errors.New(`json: unknown field "fencing"`)
		}
		if variant, ok := c["variant"].(string); ok && slices.Contains(schema2Fencing, variant) {
			c["fencing"] = true
		}
	}
	return json.Marshal(rec)
}

// objects are the JSON objects in v, a JSON array; none when v is not one.
func objects(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// rename moves m's field from, if it has one, to to, a name the old
// schema did not have: m must not have it already.
func rename(m map[string]any, from, to string) error {
	if _, taken := m[to]; taken {
		return fmt.Errorf("json: unknown field %q", to)
	}
	if v, ok := m[from]; ok {
		delete(m, from)
		m[to] = v
	}
	return nil
}
