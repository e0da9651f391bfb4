package topologies

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestServerBinary resolves --server's names and paths, and refuses a
// missing binary with ErrNoRedisServer in one line saying what to give or
// install.
func TestServerBinary(t *testing.T) {
	for _, server := range []string{"", ServerRedis, ServerValkey, "redis-server"} {
		path, err := ServerBinary(server)
		if err != nil || !strings.HasPrefix(path, "/") {
			t.Errorf("ServerBinary(%q) = %q, %v; want a path (make test installs redis-server and valkey-server)", server, path, err)
		}
	}
	valkey, _ := ServerBinary(ServerValkey)
	if got, err := ServerBinary(valkey); got != valkey || err != nil {
		t.Errorf("ServerBinary(%q) = %q, %v; want the path itself", valkey, got, err)
	}
	plain := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, server := range []string{"/no/such/binary", "no-such-server-binary", plain, t.TempDir()} {
		_, err := ServerBinary(server)
		if !errors.Is(err, ErrNoRedisServer) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), server) {
			t.Errorf("ServerBinary(%q): %v; want ErrNoRedisServer in one line naming it", server, err)
		}
	}
}

// TestValkeyTopologies starts Valkey's Sentinel topology and cluster
// with the config lockbench writes for Redis: every node (sentinels too)
// says it is Valkey, with its version, and Discover finds every data node
// in its role.
func TestValkeyTopologies(t *testing.T) {
	for _, name := range []string{"local:sentinel?replicas=1&sentinels=3", "local:cluster?masters=3&replicas=1"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := startLocal(t, Spec{Name: name, RedisServer: ServerValkey})
			products, err := Products(t.Context(), l.Nodes())
			if err != nil {
				t.Fatal(err)
			}
			if len(products) != len(l.Nodes()) || slices.ContainsFunc(products, func(p string) bool { return !strings.HasPrefix(p, "valkey 8.") }) {
				t.Errorf("products of %s: %q; want valkey 8.x on every node", name, products)
			}
			// Discovery reads Valkey's INFO replication, SENTINEL and
			// CLUSTER NODES replies: every data node, with its role.
			data, err := Discover(t.Context(), l.Access(), l.Nodes())
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, n := range data {
				got = append(got, n.Name+"/"+string(n.Role))
			}
			for _, n := range l.Nodes() {
				if n.Role != RoleSentinel {
					want = append(want, n.Name+"/"+string(n.Role))
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Discover on %s: %q; want %q", name, got, want)
			}
		})
	}
	l := startLocal(t, Spec{Name: "local"})
	products, err := Products(t.Context(), l.Nodes())
	if err != nil || len(products) != 1 || !strings.HasPrefix(products[0], "redis ") {
		t.Errorf("products of local on redis-server: %q, %v; want redis and its version", products, err)
	}
}
