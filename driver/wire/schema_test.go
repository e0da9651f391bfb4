package wire_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver/wire"
)

// docs/drivers.schema.json has a definition for every message type, and
// names no field that Message does not carry.
func TestSchemaMatchesMessages(t *testing.T) {
	data, err := os.ReadFile("../../docs/drivers.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("the schema is no JSON: %v", err)
	}
	fields := map[string]bool{}
	msg := reflect.TypeFor[wire.Message]()
	for i := range msg.NumField() {
		fields[strings.Split(msg.Field(i).Tag.Get("json"), ",")[0]] = true
	}
	for _, typ := range []string{wire.TypeInit, wire.TypeInitOK, wire.TypeAcquire, wire.TypeAcquireOK, wire.TypeNotAcquired,
		wire.TypeRelease, wire.TypeReleaseOK, wire.TypeLeaseGone, wire.TypeExtend, wire.TypeExtendOK, wire.TypeError,
		wire.TypeLeaseLost, wire.TypeRenewed, wire.TypeClock, wire.TypeClockOK} {
		def, ok := schema.Defs[typ]
		if !ok {
			t.Errorf("no definition of %s", typ)
			continue
		}
		if _, ok := def.Properties["type"]; !ok {
			t.Errorf("%s: no \"type\" property", typ)
		}
		for name := range def.Properties {
			if !fields[name] {
				t.Errorf("%s: field %q is not one of wire.Message's", typ, name)
			}
		}
		for _, name := range def.Required {
			if _, ok := def.Properties[name]; !ok {
				t.Errorf("%s: requires %q, which it does not define", typ, name)
			}
		}
	}
}
