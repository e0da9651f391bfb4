package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockbench/lockbench/topologies"
)

// defaultState is where topology up records what it started.
var defaultState = filepath.Join(os.TempDir(), "lockbench-topology.json")

// runTopologyUp is lockbench topology up NAME.
func runTopologyUp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("topology up", stderr)
	state := fs.String("state", defaultState, "the `FILE` that records the running topology")
	server := fs.String("server", "", "start it on this `SERVER`: redis (redis-server), valkey (valkey-server) or a server binary's path (default: redis-server from PATH)")
	if help, err := parseWithArgs(fs, args, 1); help || err != nil {
		return err
	}
	return topologyUp(ctx, fs.Arg(0), *server, *state, stdout)
}

// runTopologyDown is lockbench topology down.
func runTopologyDown(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("topology down", stderr)
	state := fs.String("state", defaultState, "the `FILE` that records the running topology")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	return topologyDown(*state, stdout)
}

// topologyUp starts a local topology on server (topologies.ServerBinary)
// that outlives this process and prints how to reach it.
func topologyUp(ctx context.Context, name, server, state string, stdout io.Writer) error {
	if !strings.HasPrefix(name, "local") {
		return usagef("topology up: %q is not a local topology (known: %s)", name, strings.Join(topologies.Names()[1:], ", "))
	}
	spec, _, err := topologies.Spec{Name: name}.Resolve()
	if err != nil {
		return usagef("topology up: %w", err)
	}
	if _, err := os.Stat(state); err == nil {
		return usagef("topology up: a topology is already up (state in %s); run lockbench topology down first", state)
	}
	if _, err := topologies.ServerBinary(server); err != nil {
		return usagef("topology up: --server: %w", err)
	}
	spec.Detached, spec.RedisServer = true, server
	began := time.Now()
	l, err := topologies.StartLocal(ctx, spec)
	if err != nil {
		return err
	}
	if err := l.Save(state); err != nil {
		return errors.Join(err, l.Close())
	}
	product, err := topologies.Product(ctx, l.Nodes()[0].Endpoint)
	if err != nil {
		product = "server not known: " + err.Error()
	}
	fmt.Fprintf(stdout, "topology %s (%s) up in %.2fs (state in %s)\n", l.Name(), product, time.Since(began).Seconds(), state)
	for _, n := range l.Nodes() {
		fmt.Fprintf(stdout, "  %-12s %-9s %s\n", n.Name, n.Role, n.Endpoint)
	}
	fmt.Fprintf(stdout, "use it with: lockbench run %s\n", l.Access().RunFlags())
	down := "lockbench topology down"
	if state != defaultState {
		down += " --state " + state
	}
	fmt.Fprintln(stdout, "stop it with: "+down)
	return nil
}

func topologyDown(state string, stdout io.Writer) error {
	saved, err := topologies.LoadSaved(state)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stdout, "no topology is up (no %s)\n", state)
		return nil
	}
	if err != nil {
		return err
	}
	if err := topologies.StopSaved(state); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "topology %s stopped (%d nodes)\n", saved.Name, len(saved.Nodes))
	return nil
}
