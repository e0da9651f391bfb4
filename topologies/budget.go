package topologies

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/cpubudget"
	"github.com/lockbench/lockbench/inputerr"
)

// budgetParam is the parameter of every local topology that holds each of
// its data nodes to a share of a core: local:cluster?masters=3&cpu=0.15.
const budgetParam = "cpu"

// NodeCPU is the share of a core each data node of a local spec is held
// to (its cpu parameter); 0 for none, and for a parameter that does not
// parse (Resolve refuses it).
func (s Spec) NodeCPU() float64 {
	share, _ := nodeCPU(s.Name)
	return share
}

// nodeCPU parses the cpu parameter of a local topology's name: 0 when it
// has none; an error wrapping ErrBadSpec for one outside (0, 1].
func nodeCPU(name string) (float64, error) {
	_, query, _ := strings.Cut(name, "?")
	values, err := url.ParseQuery(query)
	if err != nil || !values.Has(budgetParam) {
		return 0, nil // parseLocal says what is wrong with the rest
	}
	text := values[budgetParam][len(values[budgetParam])-1]
	share, err := strconv.ParseFloat(text, 64)
	if err != nil || !(share > 0 && share <= 1) {
		return 0, fmt.Errorf("%w %q: cpu must be a share of one core in (0, 1], such as 0.15 (got %s)", ErrBadSpec, name, text)
	}
	return share, nil
}

// withBudget is a canonical local name with the cpu parameter of name, if
// it has one, appended.
func withBudget(canonicalName, name string) (string, error) {
	share, err := nodeCPU(name)
	if err != nil || share == 0 {
		return canonicalName, err
	}
	sep := "?"
	if strings.Contains(canonicalName, "?") {
		sep = "&"
	}
	return canonicalName + sep + budgetParam + "=" + strconv.FormatFloat(share, 'g', -1, 64), nil
}

// WithNodeCPU returns the resolved spec with each data node held to share
// of a core (--node-cpu), replacing a cpu parameter of its name. Only a
// local topology takes it.
func (s Spec) WithNodeCPU(share float64) (Spec, error) {
	if !s.IsLocal() {
		return s, fmt.Errorf("%w: a CPU budget holds the nodes lockbench starts (a local topology), not %s", ErrBadSpec, s.Name)
	}
	base, query, _ := strings.Cut(s.Name, "?")
	values, _ := url.ParseQuery(query)
	values.Set(budgetParam, strconv.FormatFloat(share, 'g', -1, 64))
	s.Name = base + "?" + values.Encode()
	resolved, _, err := s.Resolve()
	return resolved, err
}

// openBudget makes the budget of a spec's nodes; nil without one. Where
// no cgroup can be written it refuses, an input error (exit 2) that says
// why.
func openBudget(s Spec) (*cpubudget.Budget, error) {
	share, err := nodeCPU(s.Name)
	if err != nil || share == 0 {
		return nil, err
	}
	b, err := cpubudget.New(share)
	if err != nil {
		return nil, inputerr.New(ErrBadSpec, fmt.Errorf("%s: cannot hold the nodes to %v of a core: %w", s.Name, share, err))
	}
	return b, nil
}

// CPUBudget is the share of a core each data node is held to and how
// (cpubudget.MechanismV1 or V2); 0 and "" without a budget.
func (l *Local) CPUBudget() (share float64, mechanism string) {
	if l.budget == nil {
		return 0, ""
	}
	return l.budget.Share(), l.budget.Mechanism()
}

// joinBudget puts the node's process pid into the node's cgroup, if it has
// one.
func (n *node) joinBudget(pid int) error {
	if n.group == nil {
		return nil
	}
	return n.group.Add(pid)
}

// leaveBudget removes the node's cgroup once its process is gone.
func (n *node) leaveBudget() error {
	if n.group == nil {
		return nil
	}
	return n.group.Remove()
}
