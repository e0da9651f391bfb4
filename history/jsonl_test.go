package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func readFile(t testing.TB, path string) *History {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func recorded(t testing.TB) *History {
	t.Helper()
	r := NewRecorder(RecorderOptions{Keys: []string{`lockbench:"quoted"\key`, "lockbench:k1"}, Limit: 2, Cell: "round trip"})
	var mu sync.Mutex
	for i := range 20 {
		cycle(r, &mu, i%3, i%2)
	}
	return r.History()
}

// sameHistory compares two histories, their start by instant.
func sameHistory(t *testing.T, got, want *History) {
	t.Helper()
	if !got.Meta.Start.Equal(want.Meta.Start) {
		t.Errorf("start %v, want %v", got.Meta.Start, want.Meta.Start)
	}
	g, w := *got, *want
	g.Meta.Start, w.Meta.Start = want.Meta.Start, want.Meta.Start
	if !reflect.DeepEqual(g.Meta, w.Meta) {
		t.Errorf("meta %+v, want %+v", g.Meta, w.Meta)
	}
	if !reflect.DeepEqual(g.Events, w.Events) {
		t.Errorf("events differ:\n%v\nwant\n%v", g.Events, w.Events)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	h := recorded(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, h); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	sameHistory(t, back, h)
}

// The hand-written encoder writes exactly what encoding/json writes for
// an Event, so the struct's tags are the schema.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	for _, h := range []*History{recorded(t), readFile(t, "testdata/renewal.jsonl")} {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, h); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if len(lines) != len(h.Events)+1 {
			t.Fatalf("%d lines for %d events", len(lines), len(h.Events))
		}
		for i, e := range h.Events {
			want, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if lines[i+1] != string(want) {
				t.Fatalf("line %d:\n%s\nwant\n%s", i+2, lines[i+1], want)
			}
		}
	}
}

func TestReadJSONErrors(t *testing.T) {
	header := `{"schema":"lockbench-history/1","limit":1,"start":"2026-01-02T03:04:05Z","capacity":4,"dropped":0,"cut":false}` + "\n"
	acquire := `{"index":0,"type":"invoke","op":"acquire","process":0,"key":"k","time":5,"invoke":0,"lease":0}` + "\n"
	tests := []struct {
		name, input, want string
	}{
		{"empty", "", "no header line"},
		{"schema", `{"schema":"other/2","limit":1}` + "\n", `schema "other/2"`},
		{"not json", header + "{index:0}\n", "line 2"},
		{"op", header + strings.Replace(acquire, `"acquire"`, `"grab"`, 1), `op "grab"`},
		{"type", header + strings.Replace(acquire, `"invoke","op"`, `"maybe","op"`, 1), `type "maybe"`},
		{"index", header + strings.Replace(acquire, `"index":0`, `"index":3`, 1), "event 0: index 3"},
		{"limit", strings.Replace(header, `"limit":1`, `"limit":0`, 1), "limit 0"},
		{"twice", header + acquire +
			`{"index":1,"type":"ok","op":"acquire","process":0,"key":"k","time":6,"invoke":0,"lease":0}` + "\n" +
			`{"index":2,"type":"fail","op":"acquire","process":0,"key":"k","time":7,"invoke":0,"lease":0}` + "\n",
			"completed twice"},
		{"time back", header + acquire +
			`{"index":1,"type":"ok","op":"acquire","process":0,"key":"k","time":4,"invoke":0,"lease":0}` + "\n",
			"before the previous"},
		{"lease", header + acquire +
			`{"index":1,"type":"invoke","op":"enter","process":0,"key":"other","time":6,"invoke":1,"lease":0}` + "\n",
			"not an acquire of key"},
		{"another's lease", header + acquire +
			`{"index":1,"type":"invoke","op":"extend","process":1,"key":"k","time":6,"invoke":1,"lease":0}` + "\n",
			"which is process 0's"},
		{"mismatch", header + acquire +
			`{"index":1,"type":"ok","op":"release","process":0,"key":"k","time":6,"invoke":0,"lease":0}` + "\n",
			"does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tt.input))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadJSON: %v; want ErrFormat mentioning %q", err, tt.want)
			}
		})
	}
}

// FuzzReadJSON: whatever ReadJSON accepts writes back to the same history.
func FuzzReadJSON(f *testing.F) {
	b, err := os.ReadFile("testdata/renewal.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"schema":"lockbench-history/1","limit":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		h.Operations()
		var buf bytes.Buffer
		if err := WriteJSON(&buf, h); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(&buf)
		if err != nil {
			t.Fatalf("rereading: %v", err)
		}
		if !reflect.DeepEqual(back.Events, h.Events) {
			t.Fatal("events changed in a round trip")
		}
	})
}
