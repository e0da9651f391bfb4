package topologies

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/redisinfo"
)

// The server products local topologies start by name (--server): each
// is its binary on PATH. Any other name is a binary's path, or a binary
// on PATH.
const (
	ServerRedis  = "redis"
	ServerValkey = "valkey"
)

// serverBinaries are the binaries of the named products, and what to
// install when one is missing.
var serverBinaries = map[string]struct{ bin, install string }{
	ServerRedis: {"redis-server", "apt-get install -y redis-server on Debian/Ubuntu, brew install redis on macOS"},
	ServerValkey: {"valkey-server", "make valkey; on Debian 12 apt-get install -y -t bookworm-backports valkey-server " +
		"with bookworm-backports in apt's sources, on Debian 13 and Ubuntu 24.04 apt-get install -y valkey-server, brew install valkey on macOS"},
}

// ServerBinary is the binary of the server that local topologies start:
// server is redis (redis-server on PATH, also for ""), valkey
// (valkey-server on PATH), or any other server binary, by its path or its
// name on PATH (a newer Redis someone built, say). Valkey runs with the
// config lockbench writes for Redis as it is (its names for the settings
// lockbench uses are Redis'), Sentinel mode included. The binary is asked
// what it is (identify) before any node starts: one that is not Redis or
// Valkey is ErrNotAServer. A missing binary is ErrNoRedisServer, its
// message saying what to install.
func ServerBinary(server string) (string, error) {
	path, err := serverPath(server)
	if err != nil {
		return "", err
	}
	if err := identify(path); err != nil {
		return "", err
	}
	return path, nil
}

// serverPath is the binary server names (see ServerBinary), not yet asked
// what it is.
func serverPath(server string) (string, error) {
	if server == "" {
		server = ServerRedis
	}
	if known, ok := serverBinaries[server]; ok {
		path, err := exec.LookPath(known.bin)
		if err != nil {
			if server == ServerRedis {
				return "", fmt.Errorf("%w (install it: %s)", ErrNoRedisServer, known.install)
			}
			return "", inputerr.Errorf(ErrNoRedisServer, "%s not found on PATH (install it: %s)", known.bin, known.install)
		}
		return path, nil
	}
	// What to give instead, or install, when server names no binary.
	alternatives := fmt.Sprintf("give %s, %s or a server binary's path; install one with apt-get install -y redis-server, or make valkey", ServerRedis, ServerValkey)
	if !strings.Contains(server, "/") {
		path, err := exec.LookPath(server)
		if err != nil {
			return "", inputerr.Errorf(ErrNoRedisServer, "%s: no such server binary on PATH (%s)", server, alternatives)
		}
		return path, nil
	}
	info, err := os.Stat(server)
	switch {
	case err != nil:
		return "", inputerr.Errorf(ErrNoRedisServer, "%s: no such server binary (%s)", server, alternatives)
	case info.IsDir() || info.Mode().Perm()&0o111 == 0:
		return "", inputerr.Errorf(ErrNoRedisServer, "%s is not an executable file (%s)", server, alternatives)
	}
	return server, nil
}

// Product asks the node at ep which server it is, from INFO server:
// "valkey 8.0.1", "redis 7.0.15" (see redisinfo.Product).
func Product(ctx context.Context, ep Endpoint) (string, error) {
	c, err := DialNode(ctx, ep)
	if err != nil {
		return "", err
	}
	defer c.Close()
	text, err := c.text(ctx, "INFO", "server")
	if err != nil {
		return "", err
	}
	product, err := redisinfo.ProductText(text)
	if err != nil {
		return "", fmt.Errorf("INFO server on %s: %w", ep.Addr, err)
	}
	return product, nil
}

// Products asks every node at once which server it is (see Product), in
// the nodes' order: "" for a node that did not say, and the errors joined.
func Products(ctx context.Context, nodes []Node) ([]string, error) {
	products := make([]string, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() {
			products[i], errs[i] = Product(ctx, n.Endpoint)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", n.Name, errs[i])
			}
		})
	}
	wg.Wait()
	return products, errors.Join(errs...)
}
