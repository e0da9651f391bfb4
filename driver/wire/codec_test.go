package wire_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver/wire"
)

// docExamples are the JSON messages of docs/drivers.md: each ```json
// block's objects, one a line or (init's) one over several lines.
func docExamples(t testing.TB) []string {
	data, err := os.ReadFile("../../docs/drivers.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, block := range strings.Split(string(data), "```json\n")[1:] {
		block = block[:strings.Index(block, "```")]
		dec := json.NewDecoder(strings.NewReader(block))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				break
			}
			var c bytes.Buffer
			if json.Compact(&c, raw) == nil && c.Len() > 0 && c.Bytes()[0] == '{' {
				out = append(out, c.String())
			}
		}
	}
	if len(out) < 12 {
		t.Fatalf("only %d examples in docs/drivers.md", len(out))
	}
	return out
}

// lines are messages the fast paths take and those they leave to
// encoding/json, which must come out the same either way.
var lines = []string{
	`{"type":"acquire","id":5,"client":3,"key":"lockbench:9f3a2c:k7"}`,
	`{"type": "acquire_ok", "in_reply_to": 5, "client": 3, "token": "3.17", "validity_ms": 9987.5, "took_us": 412}`,
	" \t{ \"type\" :\n\"release_ok\" , \"in_reply_to\":6,\"client\":3 } \r\n",
	`{}`, `{"type":""}`, `null`, `[]`, `"x"`, `1`, `{`, `{"type":"x"`, `{"type":"x",}`, `{"type":"x"} x`, `{"type":"x"}{}`,
	`{"Type":"acquire","ID":1}`, `{"TYPE":"acquire"}`, `{"type":"acquire","unknown":[1,{"a":2}],"id":1}`,
	`{"type":"x","id":1,"id":2}`, `{"type":"x","type":"y"}`, `{"type":"error","in_reply_to":null,"client":null,"definite":true}`,
	`{"type":"x","id":null}`, `{"type":null}`, `{"type":"x","definite":null}`,
	`{"type":"a\"b"}`, `{"type":"a\\b"}`, `{"type":"\u0041"}`, `{"type":"a\nb"}`, "{\"type\":\"a\nb\"}", "{\"type\":\"a\tb\"}",
	`{"type":"é ü 日本"}`, "{\"type\":\"\xff\xfe\"}", "{\"key\":\"a\xc3\"}", `{"text":"<b>&amp;</b>"}`, "{\"text\":\"\u2028\u2029\"}",
	`{"type":"x","id":-0}`, `{"type":"x","id":01}`, `{"type":"x","id":1.0}`, `{"type":"x","id":1e2}`, `{"type":"x","id":-}`,
	`{"type":"x","id":9223372036854775807}`, `{"type":"x","id":9223372036854775808}`, `{"type":"x","id":-9223372036854775808}`,
	`{"type":"x","client":-1}`, `{"type":"x","client":"3"}`, `{"type":"x","clients":2,"protocol":1,"prefix":"p:"}`,
	`{"type":"x","fence":18446744073709551615}`, `{"type":"x","fence":18446744073709551616}`, `{"type":"x","fence":-1}`, `{"type":"x","fence":-0}`,
	`{"type":"x","ttl_ms":1e400}`, `{"type":"x","ttl_ms":-0}`, `{"type":"x","ttl_ms":-0.0}`, `{"type":"x","ttl_ms":1E+3}`, `{"type":"x","ttl_ms":1.}`,
	`{"type":"x","ttl_ms":.5}`, `{"type":"x","took_us":1e-7}`, `{"type":"x","took_us":1e21}`, `{"type":"x","took_us":123456789012345678901}`,
	`{"type":"x","validity_ms":0.000001}`, `{"type":"x","validity_ms":5e-324}`, `{"type":"x","took_us":"5"}`,
	`{"type":"x","definite":true}`, `{"type":"x","definite":false}`, `{"type":"x","definite":tru}`, `{"type":"x","definite":truex}`,
	`{"type":"x","definite":1}`, `{"type":"x","token":5}`, `{"type":"x","key":true}`,
	`{"type":"init","id":0,"protocol":1,"redis":{"mode":"single","addrs":["a"]},"prefix":"p:","lock":{}}`,
	`{"type":"init_ok","in_reply_to":0,"library":"l","version":"v","language":"go","capabilities":{"extend":true,"modes":["single"]}}`,
	`{"type":"x","lock":null}`, `{"type":"x","capabilities":null}`,
}

// Decode gives what json.Unmarshal gives, on the documentation's
// examples and on lines in and out of its fast path.
func TestDecodeAsEncodingJSON(t *testing.T) {
	for _, line := range append(docExamples(t), lines...) {
		checkDecode(t, []byte(line))
	}
}

// AppendMessage and AppendEncoded write what json.Marshal writes (and
// Encode wrote with it), on the same messages.
func TestEncodeAsEncodingJSON(t *testing.T) {
	for _, line := range append(docExamples(t), lines...) {
		var m wire.Message
		if json.Unmarshal([]byte(line), &m) == nil {
			checkEncode(t, &m)
		}
	}
	for _, m := range []wire.Message{
		{}, {Type: wire.TypeError, Definite: wire.Bool(false)}, {Type: wire.TypeError, Client: wire.Int(0), Definite: wire.Bool(true), Text: "x"},
		{Type: wire.TypeAcquireOK, InReplyTo: wire.Int64(-1), Client: wire.Int(math.MaxInt), Token: "t", Fence: math.MaxUint64},
		{Type: "x", TTLMs: math.NaN()}, {Type: "x", ValidityMs: math.Inf(1)}, {Type: "x", TookUs: math.Inf(-1)},
		{Type: "x", TTLMs: math.Copysign(0, -1)}, {Type: "x", TTLMs: 1e-6}, {Type: "x", TTLMs: 9.99999e-7}, {Type: "x", TTLMs: 1e21},
		{Type: "x", TTLMs: 999999999999999999999}, {Type: "x", TTLMs: -1e-7}, {Type: "x", TookUs: 0.1 + 0.2}, {Type: "x", TookUs: -412.25},
		{Type: "a\x7fb"}, {Type: "a\x00"}, {Type: "<>&"}, {Type: "\u2028"}, {Type: "\xff"}, {Key: "k", Token: `"`},
		{Type: wire.TypeRelease, Key: "k", Token: "t", Interrupt: true, TTLMs: 1}, {Type: wire.TypeClockOK, NowMs: 1765075200123.4},
		{Type: wire.TypeInit, Lock: &wire.LockOptions{}}, {Type: wire.TypeInitOK, Capabilities: &wire.Capabilities{}},
		{Type: wire.TypeInit, Redis: &wire.Redis{Addrs: []string{"a"}}},
	} {
		checkEncode(t, &m)
	}
}

func checkDecode(t *testing.T, line []byte) {
	t.Helper()
	got, err := wire.Decode(line)
	var want wire.Message
	wantErr := json.Unmarshal(line, &want)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Errorf("%q: Decode's error %v, json.Unmarshal's %v", line, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q: Decode gives %+v, json.Unmarshal %+v", line, got, want)
	}
}

func checkEncode(t *testing.T, m *wire.Message) {
	t.Helper()
	want, wantErr := json.Marshal(m)
	prefix := []byte("prefix")
	got, err := wire.AppendMessage(prefix[:len(prefix):len(prefix)], m)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Errorf("%+v: AppendMessage's error %v, json.Marshal's %v", m, err, wantErr)
	case err != nil && string(got) != "prefix":
		t.Errorf("%+v: AppendMessage failed (%v), and changed dst to %q", m, err, got)
	case err == nil && string(got) != "prefix"+string(want):
		t.Errorf("%+v: AppendMessage writes %s, json.Marshal %s", m, got[len(prefix):], want)
	}
	want, wantErr = oldEncode(*m)
	got, err = wire.AppendEncoded([]byte("prefix"), m)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Errorf("%+v: AppendEncoded's error %v, json.Marshal's %v", m, err, wantErr)
	case err == nil && string(got) != "prefix"+string(want):
		t.Errorf("%+v: AppendEncoded writes %s, want %s", m, got[len(prefix):], want)
	}
	if enc, err := wire.Encode(*m); err == nil && string(enc) != string(want) {
		t.Errorf("%+v: Encode writes %s, want %s", m, enc, want)
	}
}

// oldEncode is Encode as it was, on json.Marshal.
func oldEncode(m wire.Message) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil || m.Type != wire.TypeError || m.InReplyTo != nil {
		return b, err
	}
	head := `{"in_reply_to":null,`
	if m.Client == nil {
		head += `"client":null,`
	}
	return append([]byte(head), b[1:]...), nil
}

// Any line decodes as encoding/json decodes it; any message decoded
// encodes as encoding/json encodes it.
func FuzzDecode(f *testing.F) {
	for _, line := range append(docExamples(f), lines...) {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkDecode(t, line)
		if m, err := wire.Decode(line); err == nil {
			checkEncode(t, &m)
		}
	})
}

// Any hot message encodes as encoding/json encodes it, and decodes back.
func FuzzEncode(f *testing.F) {
	f.Add("acquire_ok", int64(5), 3, "lockbench:9f3a2c:k7", "3.17", 9987.5, 412.0, uint64(0), "busy", "text", true)
	f.Add("error", int64(-1), 0, "<k>", "\u2028", math.Inf(1), 1e-7, uint64(12), "", "a\"b\\c\n", false)
	f.Fuzz(func(t *testing.T, typ string, id int64, client int, key, token string, validity, took float64, fence uint64, reason, text string, definite bool) {
		m := wire.Message{Type: typ, InReplyTo: &id, Client: &client, Key: key, Token: token, ValidityMs: validity, TookUs: took,
			Fence: fence, Reason: reason, Definite: &definite, Text: text}
		if id < 0 {
			m.InReplyTo, m.ID = nil, &id
		}
		checkEncode(t, &m)
		if line, err := wire.AppendMessage(nil, &m); err == nil {
			checkDecode(t, line)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"type":"acquire_ok","in_reply_to":5,"client":3,"token":"3.17","validity_ms":9987.5,"took_us":412}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wire.Decode(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	line := []byte(`{"type":"acquire_ok","in_reply_to":5,"client":3,"token":"3.17","validity_ms":9987.5,"took_us":412}`)
	b.ReportAllocs()
	for b.Loop() {
		var m wire.Message
		if err := json.Unmarshal(line, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	m := wire.Message{Type: wire.TypeAcquire, ID: wire.Int64(5), Client: wire.Int(3), Key: "lockbench:9f3a2c:k7"}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = wire.AppendMessage(buf[:0], &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalEncodingJSON(b *testing.B) {
	m := wire.Message{Type: wire.TypeAcquire, ID: wire.Int64(5), Client: wire.Int(3), Key: "lockbench:9f3a2c:k7"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}
