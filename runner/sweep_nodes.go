package runner

import (
	"slices"
	"strconv"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/topologies"
)

// sweepTopologies are the topologies a sweep runs its steps on: the plan's
// own, or with nodes a local cluster of each count of masters, no
// replicas, holding the plan's CPU budget.
func sweepTopologies(plan topologies.Spec, nodes []int) ([]topologies.Spec, error) {
	if len(nodes) == 0 {
		return []topologies.Spec{plan}, nil
	}
	if !plan.IsLocal() {
		return nil, inputerr.Errorf(ErrBadSweep, "--nodes: starts local clusters of that many masters; give no --target, --cluster or --sentinel (got %s)", plan.Name)
	}
	var specs []topologies.Spec
	for _, n := range nodes {
		spec := topologies.Spec{Name: "local:cluster?masters=" + strconv.Itoa(n) + "&replicas=0", RedisServer: plan.RedisServer, Proxies: plan.Proxies}
		resolved, _, err := spec.Resolve()
		if err == nil && plan.NodeCPU() > 0 {
			resolved, err = resolved.WithNodeCPU(plan.NodeCPU())
		}
		if err != nil {
			return nil, inputerr.Errorf(ErrBadSweep, "--nodes: %d masters: %w", n, err)
		}
		specs = append(specs, resolved)
	}
	return specs, nil
}

// checkNodes checks the node counts of --nodes: rising, from 1 to 16.
func checkNodes(nodes []int) error {
	if len(nodes) == 0 {
		return nil
	}
	if !slices.IsSorted(nodes) || len(slices.Compact(slices.Clone(nodes))) != len(nodes) || nodes[0] < 1 || nodes[len(nodes)-1] > 16 {
		return inputerr.Errorf(ErrBadSweep, "--nodes: want rising node counts from 1 to 16 such as 1,2,3 (got %s)", IntList(nodes))
	}
	if nodes[0] != 1 {
		return inputerr.Errorf(ErrBadSweep, "--nodes: the plan predicts from the one-node step: start at 1 (got %s)", IntList(nodes))
	}
	return nil
}

// nodesOnStep is onStep (nil for none) for the steps on a cluster of
// nodes masters: their index after those of the smaller clusters, their
// label naming the nodes.
func nodesOnStep(onStep func(variant string, step int, label string), nodes, first int) func(string, int, string) {
	if onStep == nil {
		return nil
	}
	return func(variant string, step int, label string) {
		onStep(variant, first+step, strconv.Itoa(nodes)+" node(s), "+label)
	}
}

// perNode is the client steps of a cluster of nodes masters: each step
// times nodes.
func perNode(clients []int, nodes int) []int {
	scaled := make([]int, len(clients))
	for i, c := range clients {
		scaled[i] = c * nodes
	}
	return scaled
}
