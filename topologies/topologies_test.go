package topologies

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseTarget(t *testing.T) {
	good := []struct {
		raw, env string
		want     Endpoint // TLS is checked by wantTLS
		wantTLS  bool
	}{
		{raw: "redis://127.0.0.1:6379", want: Endpoint{Addr: "127.0.0.1:6379"}},
		{raw: "redis://127.0.0.1:6379/", want: Endpoint{Addr: "127.0.0.1:6379"}},
		{raw: "redis://127.0.0.1:6379/2", want: Endpoint{Addr: "127.0.0.1:6379", DB: 2}},
		{raw: "redis://[::1]:6379/0", want: Endpoint{Addr: "[::1]:6379"}},
		{
			raw:     "rediss://user:pw@host:6380",
			env:     "from-env",
			want:    Endpoint{Addr: "host:6380", Username: "user", Password: "pw"},
			wantTLS: true,
		},
		{raw: "redis://user@host:6379", env: "from-env", want: Endpoint{Addr: "host:6379", Username: "user", Password: "from-env"}},
		{raw: "redis://host:6379", env: "from-env", want: Endpoint{Addr: "host:6379", Password: "from-env"}},
		{raw: "redis://user@host:6379"},
	}
	good[len(good)-1].want = Endpoint{Addr: "host:6379", Username: "user"}
	for _, tc := range good {
		t.Run(tc.raw+"/env="+tc.env, func(t *testing.T) {
			t.Setenv(PasswordEnv, tc.env)
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
			if strings.Contains(got.String(), "pw") || strings.Contains(got.String(), "from-env") {
				t.Errorf("Endpoint.String() = %q shows the password", got.String())
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
		wantKind     string
		wantFallback bool
		wantErr      string // "" when Resolve succeeds
	}{
		{name: "default is local", spec: Spec{}, wantKind: "local"},
		{name: "local", spec: Spec{Kind: "local"}, wantKind: "local"},
		{name: "embedded", spec: Spec{Kind: "embedded"}, wantKind: "embedded"},
		{name: "target URL implies target", spec: Spec{Target: "redis://h:1"}, wantKind: "target"},
		{name: "target with URL", spec: Spec{Kind: "target", Target: "redis://h:1"}, wantKind: "target"},
		{
			name:     "no redis-server falls back to embedded",
			spec:     Spec{RedisServer: "/nonexistent/redis-server"},
			wantKind: "embedded", wantFallback: true,
		},
		{
			name:     "explicit local does not fall back",
			spec:     Spec{Kind: "local", RedisServer: "/nonexistent/redis-server"},
			wantKind: "local",
		},
		{name: "target URL with another kind", spec: Spec{Kind: "local", Target: "redis://h:1"}, wantErr: "target URL"},
		{name: "target without URL", spec: Spec{Kind: "target"}, wantErr: "needs a URL"},
		{name: "unknown kind", spec: Spec{Kind: "cluster"}, wantErr: "known: local, embedded, target"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fellBack, err := tc.spec.Resolve()
			if tc.wantErr != "" {
				if !errors.Is(err, ErrBadSpec) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve(%+v) error = %v; want ErrBadSpec saying %q", tc.spec, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%+v): %v", tc.spec, err)
			}
			if got.Kind != tc.wantKind || fellBack != tc.wantFallback {
				t.Errorf("Resolve(%+v) = kind %q, fell back %v; want %q, %v", tc.spec, got.Kind, fellBack, tc.wantKind, tc.wantFallback)
			}
			if got.Target != tc.spec.Target || got.RedisServer != tc.spec.RedisServer {
				t.Errorf("Resolve changed Target or RedisServer: %+v", got)
			}
		})
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestStartLocal(t *testing.T) {
	l, err := StartLocal(testContext(t), "")
	if errors.Is(err, ErrNoRedisServer) {
		t.Fatalf("this test needs a real redis-server: %v", err)
	}
	if err != nil {
		t.Fatalf("StartLocal: %v", err)
	}
	pid, dir := l.PID(), l.n.dir
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = l.Close()
		}
	})

	if l.Kind() != "local" || !l.Managed() || !l.Representative() {
		t.Errorf("Local: kind %q, managed %v, representative %v; want local, true, true", l.Kind(), l.Managed(), l.Representative())
	}
	eps := l.Endpoints()
	if len(eps) != 1 || !strings.HasPrefix(eps[0].Addr, "127.0.0.1:") || strings.HasSuffix(eps[0].Addr, ":6379") {
		t.Fatalf("Endpoints() = %+v; want one on a free 127.0.0.1 port", eps)
	}
	if err := ping(testContext(t), eps[0].Addr); err != nil {
		t.Fatalf("PING %s: %v", eps[0].Addr, err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the node's directory: %v", err)
	}

	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	closed = true
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Close, kill(%d, 0) = %v; want ESRCH (process gone)", pid, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close, the node's directory %s: %v; want it removed", dir, err)
	}
	if err := ping(testContext(t), eps[0].Addr); err == nil {
		t.Errorf("after Close, PING %s still answered", eps[0].Addr)
	}

	// A second Close returns at once instead of waiting for an exit that
	// was already seen.
	done := make(chan error, 1)
	go func() { done <- l.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("second Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second Close hangs")
	}
}

func TestStartLocalMissingBinary(t *testing.T) {
	_, err := StartLocal(testContext(t), "/nonexistent/redis-server")
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
	if e.Kind() != "embedded" || !e.Managed() || e.Representative() {
		t.Errorf("Embedded: kind %q, managed %v, representative %v; want embedded, true, false", e.Kind(), e.Managed(), e.Representative())
	}
	eps := e.Endpoints()
	if len(eps) != 1 {
		t.Fatalf("Endpoints() = %+v; want one", eps)
	}
	if err := ping(testContext(t), eps[0].Addr); err != nil {
		t.Fatalf("PING %s: %v", eps[0].Addr, err)
	}
}

func TestOpen(t *testing.T) {
	topo, err := Open(testContext(t), Spec{Target: "redis://user:pw@127.0.0.1:1/3"})
	if err != nil {
		t.Fatalf("Open(target): %v", err)
	}
	defer topo.Close()
	if topo.Kind() != "target" || topo.Managed() || !topo.Representative() {
		t.Errorf("target: kind %q, managed %v, representative %v; want target, false, true", topo.Kind(), topo.Managed(), topo.Representative())
	}
	if got := topo.Endpoints()[0].String(); got != "redis://user@127.0.0.1:1/3" {
		t.Errorf("target endpoint = %q; want redis://user@127.0.0.1:1/3", got)
	}
	if _, err := Open(testContext(t), Spec{Kind: "cluster"}); !errors.Is(err, ErrBadSpec) {
		t.Errorf("Open(cluster) = %v; want ErrBadSpec", err)
	}
}
