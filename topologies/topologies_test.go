package topologies

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseTarget(t *testing.T) {
	good := []struct {
		raw     string
		want    Endpoint // TLS is checked by wantTLS
		wantTLS bool
	}{
		{raw: "redis://127.0.0.1:6379", want: Endpoint{Addr: "127.0.0.1:6379"}},
		{raw: "redis://127.0.0.1:6379/", want: Endpoint{Addr: "127.0.0.1:6379"}},
		{raw: "redis://127.0.0.1:6379/2", want: Endpoint{Addr: "127.0.0.1:6379", DB: 2}},
		{raw: "redis://[::1]:6379/0", want: Endpoint{Addr: "[::1]:6379"}},
		{raw: "rediss://user@host:6380", want: Endpoint{Addr: "host:6380", Username: "user"}, wantTLS: true},
		{raw: "redis://user@host:6379", want: Endpoint{Addr: "host:6379", Username: "user"}},
	}
	for _, tc := range good {
		t.Run(tc.raw, func(t *testing.T) {
			t.Setenv(PasswordEnv, "from-env") // not ParseTarget's business: Spec.Password
			got, err := ParseTarget(tc.raw, false)
			if err != nil {
				t.Fatalf("ParseTarget(%q): %v", tc.raw, err)
			}
			if (got.TLS != nil) != tc.wantTLS {
				t.Errorf("TLS = %v; want set: %v", got.TLS, tc.wantTLS)
			}
			if got.TLS != nil && (got.TLS.ServerName != "host" || got.TLS.InsecureSkipVerify) {
				t.Errorf("TLS = {ServerName: %q, InsecureSkipVerify: %v}; want host, false", got.TLS.ServerName, got.TLS.InsecureSkipVerify)
			}
			got.TLS = nil
			if got != tc.want {
				t.Errorf("ParseTarget(%q) = %+v; want %+v", tc.raw, got, tc.want)
			}
		})
	}

	t.Run("tls insecure", func(t *testing.T) {
		got, err := ParseTarget("rediss://host:6380", true)
		if err != nil || got.TLS == nil || !got.TLS.InsecureSkipVerify {
			t.Errorf("ParseTarget(rediss, insecure) = %+v, %v; want TLS with InsecureSkipVerify", got, err)
		}
	})

	bad := []struct{ raw, why string }{
		{"http://127.0.0.1:6379", "redis://"},
		{"127.0.0.1:6379", "redis://"},
		{"redis://127.0.0.1", "host:port"},
		{"redis://:6379", "host:port"},
		{"redis://127.0.0.1:0", "port"},
		{"redis://127.0.0.1:70000", "port"},
		{"redis://127.0.0.1:abc", "URL"},
		{"redis://127.0.0.1:6379/-1", "database"},
		{"redis://127.0.0.1:6379/x", "database"},
		{"redis://127.0.0.1:6379/1/2", "database"},
		{"redis://127.0.0.1:6379?db=1", "query"},
		{"redis://127.0.0.1:6379#top", "fragment"},
		{"", "redis://"},
		{"::garbage::", "URL"},
		{"redis://u:s3cret@127.0.0.1:6379?x=1", "query"},
		{"redis://u:s3cret@127.0.0.1:abc", "URL"},
		{"redis://u:s3cret%zz@127.0.0.1:6379", "URL"},
		{"redis://u:s3cret@host", "host:port"},
		{"u:s3cret@127.0.0.1:6379", "redis://"},
		{"http://u:s3cret@127.0.0.1:6379", "redis://"},
		{"redis://u:s3cret@127.0.0.1:6379/x", "database"},
		{"redis://u:s3cret@127.0.0.1:6379", "password"},
		{"rediss://:s3cret@127.0.0.1:6379/0", "LOCKBENCH_REDIS_PASSWORD"},
	}
	for _, tc := range bad {
		t.Run("bad/"+tc.raw, func(t *testing.T) {
			got, err := ParseTarget(tc.raw, false)
			if !errors.Is(err, ErrBadSpec) {
				t.Fatalf("ParseTarget(%q) = %+v, %v; want ErrBadSpec", tc.raw, got, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.why) || !strings.Contains(msg, "example") {
				t.Errorf("error %q does not say %q and give an example", msg, tc.why)
			}
			if strings.Contains(msg, "s3cret") {
				t.Errorf("error %q shows the password", msg)
			}
		})
	}
}

func TestSpecResolve(t *testing.T) {
	tests := []struct {
		name         string
		spec         Spec
		wantName     string
		wantMode     Mode
		wantFallback bool
		wantErr      []string // what the error says; nil when Resolve succeeds
	}{
		{name: "default is local", spec: Spec{}, wantName: "local:single", wantMode: ModeSingle},
		{
			name:     "no redis-server falls back to embedded",
			spec:     Spec{RedisServer: "/nonexistent/redis-server"},
			wantName: "embedded", wantMode: ModeSingle, wantFallback: true,
		},
		{
			name:     "explicit local does not fall back",
			spec:     Spec{Name: "local", RedisServer: "/nonexistent/redis-server"},
			wantName: "local:single", wantMode: ModeSingle,
		},
		{name: "local:single", spec: Spec{Name: "local:single"}, wantName: "local:single", wantMode: ModeSingle},
		{name: "embedded", spec: Spec{Name: "embedded"}, wantName: "embedded", wantMode: ModeSingle},
		{name: "replicated default", spec: Spec{Name: "local:replicated"}, wantName: "local:replicated?replicas=2", wantMode: ModeSingle},
		{
			name:     "sentinel parameters in any order",
			spec:     Spec{Name: "local:sentinel?sentinels=5&replicas=1"},
			wantName: "local:sentinel?replicas=1&sentinels=5", wantMode: ModeSingle,
		},
		{name: "cluster", spec: Spec{Name: "local:cluster?masters=6"}, wantName: "local:cluster?masters=6&replicas=0", wantMode: ModeCluster},
		{name: "redlock", spec: Spec{Name: "local:redlock?nodes=3"}, wantName: "local:redlock?nodes=3", wantMode: ModeIndependent},
		{name: "one target", spec: Spec{Targets: []string{"redis://h:1"}}, wantName: "target", wantMode: ModeSingle},
		{name: "targets", spec: Spec{Targets: []string{"redis://h:1", "redis://h:2"}}, wantName: "independent", wantMode: ModeIndependent},
		{name: "external cluster", spec: Spec{Cluster: []string{"h:1"}}, wantName: "cluster", wantMode: ModeCluster},
		{name: "external sentinel", spec: Spec{Sentinels: []string{"h:1"}, MasterName: "m"}, wantName: "sentinel", wantMode: ModeSingle},

		{name: "unknown name", spec: Spec{Name: "nonsense"}, wantErr: []string{"unknown topology", "known: embedded, local:single, local:replicated?replicas=2"}},
		{name: "unknown local kind", spec: Spec{Name: "local:bogus"}, wantErr: []string{"unknown topology", "local:redlock?nodes=5"}},
		{name: "unknown parameter", spec: Spec{Name: "local:cluster?shards=3"}, wantErr: []string{`no parameter "shards"`, "it takes: masters, replicas"}},
		{name: "nodes=0", spec: Spec{Name: "local:redlock?nodes=0"}, wantErr: []string{"nodes must be a whole number from 1 to 15"}},
		{name: "masters=17", spec: Spec{Name: "local:cluster?masters=17"}, wantErr: []string{"masters must be a whole number from 1 to 16"}},
		{name: "not a number", spec: Spec{Name: "local:replicated?replicas=two"}, wantErr: []string{"replicas must be a whole number from 1 to 8"}},
		{name: "two kinds of external", spec: Spec{Targets: []string{"redis://h:1"}, Cluster: []string{"h:2"}}, wantErr: []string{"give one of"}},
		{name: "local with a target", spec: Spec{Name: "local", Targets: []string{"redis://h:1"}}, wantErr: []string{"started by lockbench"}},
		{name: "sentinel without master name", spec: Spec{Sentinels: []string{"h:1"}}, wantErr: []string{"--master-name"}},
		{name: "bad cluster address", spec: Spec{Cluster: []string{"h"}}, wantErr: []string{"not host:port"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fellBack, err := tc.spec.Resolve()
			if tc.wantErr != nil {
				if !errors.Is(err, ErrBadSpec) {
					t.Fatalf("Resolve(%+v) error = %v; want ErrBadSpec", tc.spec, err)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Resolve(%+v) error %q does not say %q", tc.spec, err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%+v): %v", tc.spec, err)
			}
			if got.Name != tc.wantName || fellBack != tc.wantFallback || got.Mode() != tc.wantMode {
				t.Errorf("Resolve(%+v) = %q (mode %s), fell back %v; want %q (%s), %v", tc.spec, got.Name, got.Mode(), fellBack, tc.wantName, tc.wantMode, tc.wantFallback)
			}
			if got.RedisServer != tc.spec.RedisServer {
				t.Errorf("Resolve changed RedisServer: %+v", got)
			}
		})
	}
}

func TestStartLocalBadSpec(t *testing.T) {
	for _, name := range []string{"local:nope", "local:cluster?masters=17", "local:redlock?nodes=0", "local:single?replicas=1"} {
		if l, err := StartLocal(testContext(t, 5*time.Second), Spec{Name: name}); !errors.Is(err, ErrBadSpec) {
			if l != nil {
				_ = l.Close()
			}
			t.Errorf("StartLocal(%q) = %v; want ErrBadSpec", name, err)
		}
	}
}

// FuzzParseLocal checks that whatever parseLocal accepts has a canonical
// name that parses to the same topology, and that it rejects the rest with
// ErrBadSpec.
func FuzzParseLocal(f *testing.F) {
	for _, seed := range []string{"local", "local:cluster?masters=3&replicas=1", "local:sentinel?sentinels=2", "local:redlock?nodes=0", "local:x", "localx", "local:cluster?masters=3&masters=4", "local:replicated?replicas=%zz"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		kind, params, err := parseLocal(name)
		if err != nil {
			if !errors.Is(err, ErrBadSpec) {
				t.Fatalf("parseLocal(%q) error %v is not ErrBadSpec", name, err)
			}
			return
		}
		again, params2, err := parseLocal(canonical(kind, params))
		if err != nil || again != kind || fmt.Sprint(params) != fmt.Sprint(params2) {
			t.Fatalf("parseLocal(%q) = %s %v, but its canonical name parses to %s %v, %v", name, kind, params, again, params2, err)
		}
	})
}

func ExampleSpec_Resolve() {
	spec, _, err := Spec{Name: "local:cluster?masters=6"}.Resolve()
	fmt.Println(spec.Name, spec.Mode(), err)
	// Output: local:cluster?masters=6&replicas=0 cluster <nil>
}

// testContext is a context for the test that ends after timeout.
func testContext(t testing.TB, timeout time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

func TestStartLocalMissingBinary(t *testing.T) {
	_, err := StartLocal(testContext(t, 5*time.Second), Spec{Name: "local", RedisServer: "/nonexistent/redis-server"})
	if !errors.Is(err, ErrNoRedisServer) || !strings.Contains(err.Error(), "install") {
		t.Errorf("StartLocal with a missing binary: %v; want ErrNoRedisServer saying how to install it", err)
	}
}

func TestStartEmbedded(t *testing.T) {
	e, err := StartEmbedded()
	if err != nil {
		t.Fatalf("StartEmbedded: %v", err)
	}
	defer e.Close()
	if e.Name() != "embedded" || !e.Managed() || e.Representative() {
		t.Errorf("Embedded: name %q, managed %v, representative %v; want embedded, true, false", e.Name(), e.Managed(), e.Representative())
	}
	a := e.Access()
	if a.Mode != ModeSingle || len(a.Endpoints) != 1 {
		t.Fatalf("Access() = %+v; want one endpoint, mode single", a)
	}
	if err := ping(testContext(t, 5*time.Second), a.Endpoints[0].Addr); err != nil {
		t.Fatalf("PING %s: %v", a.Endpoints[0].Addr, err)
	}
}

func TestOpen(t *testing.T) {
	topo, err := Open(testContext(t, 5*time.Second), Spec{Targets: []string{"redis://user@127.0.0.1:1/3"}, Password: "pw"})
	if err != nil {
		t.Fatalf("Open(target): %v", err)
	}
	defer topo.Close()
	if topo.Name() != "target" || topo.Managed() || !topo.Representative() {
		t.Errorf("target: name %q, managed %v, representative %v; want target, false, true", topo.Name(), topo.Managed(), topo.Representative())
	}
	if ep := topo.Access().Endpoints[0]; ep.String() != "redis://user@127.0.0.1:1/3" || ep.Password != "pw" {
		t.Errorf("target endpoint = %q with password %q; want redis://user@127.0.0.1:1/3 with the spec's", ep.String(), ep.Password)
	}
	if _, err := Open(testContext(t, 5*time.Second), Spec{Name: "local:cluster?masters=0"}); !errors.Is(err, ErrBadSpec) {
		t.Errorf("Open(local:cluster?masters=0) = %v; want ErrBadSpec", err)
	}
}
