package history

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// A small EDN reader, enough for op maps: maps, vectors, keywords,
// integers, strings, nil, booleans.

type keyword string

type ednReader struct {
	s   string
	pos int
}

func readEDN(s string) (any, error) {
	r := &ednReader{s: s}
	v, err := r.value()
	if err != nil {
		return nil, err
	}
	r.space()
	if r.pos != len(r.s) {
		return nil, fmt.Errorf("trailing input at %d: %q", r.pos, r.s[r.pos:])
	}
	return v, nil
}

func (r *ednReader) space() {
	for r.pos < len(r.s) && strings.ContainsRune(" \t\n\r,", rune(r.s[r.pos])) {
		r.pos++
	}
}

func (r *ednReader) value() (any, error) {
	r.space()
	if r.pos >= len(r.s) {
		return nil, fmt.Errorf("unexpected end")
	}
	switch c := r.s[r.pos]; {
	case c == '{':
		r.pos++
		m := map[keyword]any{}
		for {
			r.space()
			if r.pos < len(r.s) && r.s[r.pos] == '}' {
				r.pos++
				return m, nil
			}
			k, err := r.value()
			if err != nil {
				return nil, err
			}
			kw, ok := k.(keyword)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a keyword", k)
			}
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			if _, dup := m[kw]; dup {
				return nil, fmt.Errorf("duplicate key %s", kw)
			}
			m[kw] = v
		}
	case c == '[':
		r.pos++
		var vec []any
		for {
			r.space()
			if r.pos < len(r.s) && r.s[r.pos] == ']' {
				r.pos++
				return vec, nil
			}
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			vec = append(vec, v)
		}
	case c == '"':
		var b strings.Builder
		for r.pos++; r.pos < len(r.s); r.pos++ {
			switch ch := r.s[r.pos]; ch {
			case '"':
				r.pos++
				return b.String(), nil
			case '\\':
				r.pos++
				if r.pos >= len(r.s) {
					return nil, fmt.Errorf("unterminated escape")
				}
				esc, ok := map[byte]byte{'"': '"', '\\': '\\', 'n': '\n', 't': '\t', 'r': '\r'}[r.s[r.pos]]
				if !ok {
					return nil, fmt.Errorf("unknown escape \\%c", r.s[r.pos])
				}
				b.WriteByte(esc)
			default:
				b.WriteByte(ch)
			}
		}
		return nil, fmt.Errorf("unterminated string")
	case c == ':':
		return keyword(r.token()[1:]), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return strconv.ParseInt(r.token(), 10, 64)
	default:
		switch tok := r.token(); tok {
		case "nil":
			return nil, nil
		case "true", "false":
			return tok == "true", nil
		default:
			return nil, fmt.Errorf("unknown token %q", tok)
		}
	}
}

func (r *ednReader) token() string {
	start := r.pos
	for r.pos < len(r.s) && !strings.ContainsRune(" \t\n\r,{}[]\"", rune(r.s[r.pos])) {
		r.pos++
	}
	return r.s[start:r.pos]
}

// ednOps parses WriteEDN's output, one op map a line, checking what
// Jepsen expects of every op: the keys, consecutive indexes, times in
// order, and processes that run one op at a time and never run again
// after an :info.
func ednOps(t *testing.T, out string) []map[keyword]any {
	t.Helper()
	var ops []map[keyword]any
	running := map[int64]bool{}
	crashed := map[int64]bool{}
	var last int64
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		v, err := readEDN(line)
		if err != nil {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
		m, ok := v.(map[keyword]any)
		if !ok {
			t.Fatalf("line %d is not a map: %q", i+1, line)
		}
		for _, k := range []keyword{"process", "type", "f", "time", "index"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d lacks :%s: %q", i+1, k, line)
			}
		}
		if _, ok := m["value"]; !ok {
			t.Fatalf("line %d lacks :value: %q", i+1, line)
		}
		if m["index"] != int64(i) {
			t.Fatalf("line %d: :index %v", i+1, m["index"])
		}
		tm := m["time"].(int64)
		if tm < last {
			t.Fatalf("line %d: :time %d before %d", i+1, tm, last)
		}
		last = tm
		p := m["process"].(int64)
		switch m["type"] {
		case keyword("invoke"):
			if running[p] || crashed[p] {
				t.Fatalf("line %d: process %d invoked while running or after :info", i+1, p)
			}
			running[p] = true
		case keyword("ok"), keyword("fail"), keyword("info"):
			if !running[p] {
				t.Fatalf("line %d: process %d completes nothing", i+1, p)
			}
			running[p] = false
			crashed[p] = m["type"] == keyword("info")
		default:
			t.Fatalf("line %d: :type %v", i+1, m["type"])
		}
		ops = append(ops, m)
	}
	return ops
}

func writeEDN(t *testing.T, h *History, opts EDNOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteEDN(&buf, h, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The EDN of the renewal fixture in each view, against golden files.
func TestEDNGolden(t *testing.T) {
	h := readFile(t, "testdata/renewal.jsonl")
	for _, tt := range []struct {
		name string
		opts EDNOptions
	}{
		{"critical-sections", EDNOptions{}},
		{"leases", EDNOptions{View: Leases}},
		{"all", EDNOptions{View: AllOps}},
		{"key", EDNOptions{Key: "lockbench:a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := writeEDN(t, h, tt.opts)
			ednOps(t, out)
			golden := filepath.Join("testdata", "renewal."+tt.name+".edn.golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out != string(want) {
				t.Errorf("EDN differs from %s:\n%s\nwant\n%s", golden, out, want)
			}
		})
	}
}

func TestEDNViews(t *testing.T) {
	h := recorded(t)
	for _, op := range ednOps(t, writeEDN(t, h, EDNOptions{})) {
		if f := op["f"]; f != keyword("acquire") && f != keyword("release") {
			t.Fatalf("critical sections: :f %v", f)
		}
	}
	ops := ednOps(t, writeEDN(t, h, EDNOptions{Key: "lockbench:k1"}))
	for _, op := range ops {
		if op["value"] != nil {
			t.Fatalf("one key: :value %v, want nil", op["value"])
		}
	}
	n := 0
	for _, e := range h.Events {
		if e.Key == "lockbench:k1" && CriticalSections.Includes(e.Op) {
			n++
		}
	}
	if len(ops) != n || n == 0 {
		t.Errorf("one key: %d ops, want %d", len(ops), n)
	}
}

// JSON lines → EDN (every op) → parsed back to a History: the same
// events. Completions are matched to invocations by Jepsen process, as
// Jepsen does. The histories include renewals (:f :extend) beside the
// critical sections, one completed after its lease's release and one
// pending, each on a Jepsen process of its own.
func TestEDNRoundTrip(t *testing.T) {
	for _, h := range []*History{recorded(t), readFile(t, "testdata/renewal.jsonl"), renewed(t)} {
		var jsonl bytes.Buffer
		if err := WriteJSON(&jsonl, h); err != nil {
			t.Fatal(err)
		}
		h, err := ReadJSON(&jsonl)
		if err != nil {
			t.Fatal(err)
		}
		ops := ednOps(t, writeEDN(t, h, EDNOptions{View: AllOps}))
		back := &History{Meta: h.Meta}
		open := map[int64]int{} // Jepsen process → its invocation's index
		for i, m := range ops {
			e := Event{Index: i, Time: m["time"].(int64), Lease: int(m["lease"].(int64))}
			if err := e.Type.UnmarshalText([]byte(m["type"].(keyword))); err != nil {
				t.Fatal(err)
			}
			if err := e.Op.UnmarshalText([]byte(m["f"].(keyword))); err != nil {
				t.Fatal(err)
			}
			jp := m["process"].(int64)
			e.Process = int(jp)
			if c, ok := m["client"]; ok {
				e.Process = int(c.(int64))
			}
			e.Key = m["value"].([]any)[0].(string)
			if f, ok := m["fence"]; ok {
				e.Fence = uint64(f.(int64))
			}
			if e.Type == Invoke {
				e.Invoke, open[jp] = i, i
			} else {
				e.Invoke = open[jp]
			}
			back.Events = append(back.Events, e)
		}
		if err := back.Validate(); err != nil {
			t.Fatal(err)
		}
		sameHistory(t, back, h)
	}
}
