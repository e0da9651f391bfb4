package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// cleanup removes the run's keys wherever they may be: on the one Redis,
// on every independent master, or on every master of a cluster (found with
// CLUSTER NODES, so an external cluster given by one seed is covered too).
func cleanup(ctx context.Context, access topologies.Access, conns []clients.Client, library, prefix string) error {
	if access.Mode != topologies.ModeCluster {
		var errs []error
		for _, c := range conns {
			_, err := DeleteKeys(ctx, c, prefix)
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	masters, err := clusterMasters(ctx, conns[0])
	if err != nil {
		return err
	}
	var errs []error
	for _, addr := range masters {
		ep := access.Endpoints[0]
		ep.Addr = addr
		c, err := clients.New(ctx, ep, clients.Options{Library: library})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_, err = DeleteKeys(ctx, c, prefix)
		errs = append(errs, err)
		c.Close()
	}
	return errors.Join(errs...)
}

// clusterMasters lists the addresses of a cluster's masters that are not
// marked failed.
func clusterMasters(ctx context.Context, conn variants.Conn) ([]string, error) {
	reply, err := conn.Do(ctx, variants.Bare("CLUSTER", "NODES"))
	if err != nil {
		return nil, fmt.Errorf("runner: CLUSTER NODES: %w", err)
	}
	text, _ := reply.(string)
	var masters []string
	for line := range strings.SplitSeq(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
			continue
		}
		addr, _, _ := strings.Cut(f[1], "@")
		masters = append(masters, addr)
	}
	return masters, nil
}
