package redisinfo

import (
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// The captures in testdata are replies of redis-server 7.0.15 in a
// local:replicated?replicas=2 topology after five SETs (INFO server
// replication of the master and of replica-1, \r\n line ends as Redis
// writes them), and CLUSTER NODES and CLUSTER INFO of master-2 of a
// local:cluster?masters=3&replicas=1 a few seconds after replica-1 was
// killed.
func captured(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The ways INFO text arrives: as Redis writes it, with bare line ends, and
// as a RESP3 verbatim string (rueidis hands those over with "txt:").
var forms = map[string]func(string) string{
	"crlf":     func(s string) string { return s },
	"lf":       func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") },
	"verbatim": func(s string) string { return "txt:" + s },
}

func TestParseCaptured(t *testing.T) {
	for form, encode := range forms {
		t.Run(form, func(t *testing.T) {
			info, err := Parse(encode(captured(t, "info-master.txt")))
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(info)); strings.Join(got, ",") != "replication,server" {
				t.Errorf("sections %v; want replication and server", got)
			}
			for _, tc := range []struct{ section, field, want string }{
				{"server", "redis_version", "7.0.15"}, {"Server", "tcp_port", "43279"}, {"server", "process_supervised", "no"},
				{"replication", "role", "master"}, {"REPLICATION", "slave1", "ip=127.0.0.1,port=43843,state=online,offset=163,lag=0"},
			} {
				got, err := info.Field(tc.section, tc.field)
				if err != nil || got != tc.want {
					t.Errorf("Field(%s, %s) = %q, %v; want %q", tc.section, tc.field, got, err, tc.want)
				}
				// The one-field function reads the same.
				if one, err := Field(encode(captured(t, "info-master.txt")), tc.section, tc.field); err != nil || one != got {
					t.Errorf("Field(text, %s, %s) = %q, %v; Info.Field says %q", tc.section, tc.field, one, err, got)
				}
			}
			if id, _ := info.Field("server", "run_id"); len(id) != 40 {
				t.Errorf("run_id %q; want 40 hex digits", id)
			}
		})
	}
}

// CLUSTER INFO has no section header: its fields are the section "".
func TestClusterInfo(t *testing.T) {
	text := captured(t, "cluster-info.txt")
	for field, want := range map[string]string{"cluster_state": "ok", "cluster_slots_assigned": "16384", "cluster_known_nodes": "6"} {
		if got, err := Field(text, "", field); err != nil || got != want {
			t.Errorf("Field(%s) = %q, %v; want %q", field, got, err, want)
		}
	}
	if _, err := Field(text, "cluster", "cluster_state"); !errors.Is(err, ErrMalformed) {
		t.Errorf("a section CLUSTER INFO does not have: %v; want ErrMalformed", err)
	}
}

func TestField(t *testing.T) {
	info := "txt:# Server\r\nredis_version:7.0.15\r\nrun_id:abc123\r\n\r\n# Clients\r\nconnected_clients:3\r\n"
	for _, tc := range []struct{ section, field, want string }{
		{"server", "redis_version", "7.0.15"}, {"Server", "run_id", "abc123"}, {"clients", "connected_clients", "3"},
	} {
		if got, err := Field(info, tc.section, tc.field); err != nil || got != tc.want {
			t.Errorf("Field(%s, %s) = %q, %v; want %q", tc.section, tc.field, got, err, tc.want)
		}
	}
	// A field of another section, or none, is not there.
	for _, tc := range []struct{ section, field string }{{"server", "connected_clients"}, {"server", "run"}, {"memory", "used_memory"}} {
		if got, err := Field(info, tc.section, tc.field); !errors.Is(err, ErrMalformed) {
			t.Errorf("Field(%s, %s) = %q, %v; want ErrMalformed", tc.section, tc.field, got, err)
		}
	}
}

func TestLines(t *testing.T) {
	text := "# CPU\r\nused_cpu_sys:1.0\r\n\r\n# Commandstats\r\n\r\ncmdstat_del:calls=1,usec=1\r\nnot a field\r\n# Errorstats\r\n"
	got, err := Lines(text, "commandstats")
	if err != nil || strings.Join(got, "|") != "cmdstat_del:calls=1,usec=1|not a field" {
		t.Errorf("Lines = %q, %v; want the section's two lines as given", got, err)
	}
	if got, err := Lines(text, "errorstats"); err != nil || len(got) != 0 {
		t.Errorf("an empty section: %q, %v; want no lines", got, err)
	}
	for _, tc := range []struct{ name, text, section string }{
		{"missing", text, "memory"},
		{"twice", "# CPU\nused_cpu_sys:1\n# cpu\nused_cpu_user:1\n", "cpu"},
		{"empty text", "", "cpu"},
	} {
		if got, err := Lines(tc.text, tc.section); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %q, %v; want ErrMalformed", tc.name, got, err)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"section twice", "# Server\nrun_id:a\n# server\nrun_id:b\n"},
		{"not key:value", "# Server\nredis_version 7.0.15\n"},
		{"no key", "# Server\n:7.0.15\n"},
		{"key twice", "# Server\nrun_id:a\nrun_id:b\n"},
		{"an error, not INFO", "ERR unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := Parse(tc.text); !errors.Is(err, ErrMalformed) {
				t.Errorf("got %v, %v; want an error wrapping ErrMalformed", got, err)
			}
		})
	}
	// A malformed section spoils only itself for Section and Field.
	text := "# Server\nredis_version 7\n# Clients\nconnected_clients:3\n"
	if v, err := Field(text, "clients", "connected_clients"); err != nil || v != "3" {
		t.Errorf("Field in a good section = %q, %v; want 3", v, err)
	}
	if _, err := Section(text, "server"); !errors.Is(err, ErrMalformed) {
		t.Errorf("Section of the bad one: %v; want ErrMalformed", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(captured(f, "info-master.txt"))
	f.Add(captured(f, "cluster-info.txt"))
	f.Add("txt:# Server\r\nrun_id:x\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		info, err := Parse(text)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for name, fields := range info {
			if name != strings.ToLower(name) {
				t.Errorf("section %q is not in lower case", name)
			}
			section, err := Section(text, name)
			if err != nil || !maps.Equal(section, fields) {
				t.Errorf("Section(%q) = %v, %v; Parse says %v", name, section, err, fields)
			}
		}
	})
}
