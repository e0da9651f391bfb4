package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/topologies"
)

// cleanup removes the run's keys wherever they may be: on the one Redis,
// on every independent master, or on every master of a cluster (found with
// topologies.Discover, so an external cluster given by one seed is covered
// too). The run id's claim stays: its holder releases it (see claim).
func cleanup(ctx context.Context, access topologies.Access, conns []clients.Client, library, prefix string) error {
	if access.Mode != topologies.ModeCluster {
		var errs []error
		for _, c := range conns {
			errs = append(errs, deleteRunKeys(ctx, c, prefix))
		}
		return errors.Join(errs...)
	}
	nodes, err := topologies.Discover(ctx, access, nil)
	if err != nil {
		return fmt.Errorf("runner: find the cluster's masters: %w", err)
	}
	var errs []error
	for _, n := range nodes {
		if n.Role != topologies.RoleMaster {
			continue
		}
		c, err := clients.New(ctx, n.Endpoint, clients.Options{Library: library})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, deleteRunKeys(ctx, c, prefix))
		c.Close()
	}
	return errors.Join(errs...)
}
