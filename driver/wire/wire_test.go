package wire_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver/wire"
)

// The requests a driver must refuse as malformed, and those it serves.
func TestCheckRequest(t *testing.T) {
	for line, want := range map[string]string{
		`{"type":"acquire","id":1,"client":0,"key":"p:k"}`:                                                    "",
		`{"type":"release","id":1,"client":0,"key":"p:k","token":"t"}`:                                        "",
		`{"type":"extend","id":1,"client":2,"key":"p:k","token":"t","ttl_ms":5}`:                              "",
		`{"type":"init","id":0,"protocol":1,"redis":{"mode":"single","addrs":["a"]},"prefix":"p:","lock":{}}`: "",
		`{"id":1}`: `without "type"`,
		`{"type":"steal","id":1,"client":0,"key":"k"}`:                `unknown request type "steal"`,
		`{"type":"acquire","client":0,"key":"k"}`:                     `without "id"`,
		`{"type":"acquire","id":1,"key":"k"}`:                         `without "client"`,
		`{"type":"acquire","id":1,"client":-1,"key":"k"}`:             `without "client"`,
		`{"type":"acquire","id":1,"client":0}`:                        `without "key"`,
		`{"type":"release","id":1,"client":0,"key":"k"}`:              `without "token"`,
		`{"type":"init","id":0,"protocol":1,"prefix":"p:","lock":{}}`: `without "redis"`,
	} {
		var m wire.Message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		err := m.CheckRequest()
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", line, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

// Replies keep the protocol's field names; an error is definite or not,
// and names its request (null when it had none).
func TestReplyJSON(t *testing.T) {
	req := wire.Message{Type: wire.TypeAcquire, ID: wire.Int64(5), Client: wire.Int(3), Key: "p:k"}
	ok := wire.ReplyTo(&req, wire.TypeAcquireOK)
	ok.Token, ok.ValidityMs, ok.TookUs = "tok", 9987.5, 412
	for m, want := range map[*wire.Message]string{
		&ok: `{"type":"acquire_ok","in_reply_to":5,"client":3,"token":"tok","validity_ms":9987.5,"took_us":412}`,
		ptr(wire.ErrorReply(&req, false, wire.CodeIO, "boom")):                                  `{"type":"error","in_reply_to":5,"client":3,"definite":false,"code":"io","text":"boom"}`,
		ptr(wire.ErrorReply(nil, true, wire.CodeMalformed, "x")):                                `{"in_reply_to":null,"client":null,"type":"error","definite":true,"code":"malformed","text":"x"}`,
		ptr(wire.ErrorReply(&wire.Message{Client: wire.Int(2)}, true, wire.CodeMalformed, "x")): `{"in_reply_to":null,"type":"error","client":2,"definite":true,"code":"malformed","text":"x"}`,
	} {
		got, err := wire.Encode(*m)
		if err != nil || string(got) != want {
			t.Errorf("got %s (%v), want %s", got, err, want)
		}
	}
}

func ptr(m wire.Message) *wire.Message { return &m }

// A password comes from the variable or the file named, never the message.
func TestPasswordSource(t *testing.T) {
	t.Setenv("WIRE_TEST_PASSWORD", "s3cret")
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[*wire.PasswordSource]string{
		nil: "", {Env: "WIRE_TEST_PASSWORD"}: "s3cret", {File: file}: "fromfile",
	} {
		if got, err := src.Read(); err != nil || got != want {
			t.Errorf("%+v: %q, %v; want %q", src, got, err, want)
		}
	}
	if _, err := (&wire.PasswordSource{Env: "WIRE_TEST_UNSET_VARIABLE"}).Read(); err == nil {
		t.Error("an unset variable read as a password")
	}
}

// A driver's answer to a line that was no request names none.
func ExampleEncode() {
	line, _ := wire.Encode(wire.ErrorReply(nil, true, wire.CodeMalformed, "not a JSON object"))
	fmt.Println(string(line))
	// Output: {"in_reply_to":null,"client":null,"type":"error","definite":true,"code":"malformed","text":"not a JSON object"}
}
