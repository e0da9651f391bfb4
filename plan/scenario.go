package plan

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrBadScenario is wrapped by every scenario lookup and file error.
var ErrBadScenario = errors.New("bad scenario")

// Scenario is a named experiment: the settings of a run that reproduces a
// claim of the literature, with where the claim comes from and what it
// predicts. Every setting is optional (empty or zero: not set); Build
// turns it into a plan, where a setting the user gives replaces the
// scenario's, a list as a whole. The same fields make the YAML file format.
type Scenario struct {
	Name     string   `yaml:"name"`
	Tests    string   `yaml:"tests"`    // what it reproduces
	Source   string   `yaml:"source"`   // where the claim comes from
	Predicts string   `yaml:"predicts"` // the outcome the source predicts
	Variants []string `yaml:"variants"`

	Topology       string   `yaml:"topology"`
	Clients        []int    `yaml:"clients"`
	Keys           int      `yaml:"keys"`
	Limit          int      `yaml:"limit"`
	TTL            string   `yaml:"ttl"`
	Hold           string   `yaml:"hold"`
	Think          string   `yaml:"think"`
	Duration       string   `yaml:"duration"`
	Warmup         string   `yaml:"warmup"`
	AcquireTimeout string   `yaml:"acquire_timeout"`
	Retry          string   `yaml:"retry"`
	ClockSkew      string   `yaml:"clock_skew"`
	ClockJumps     []string `yaml:"clock_jumps"`
	Faults         []string `yaml:"faults"`
	Repeat         int      `yaml:"repeat"`
	// DriverProcs is the run's --driver-procs: the driver processes a
	// driver cell spreads its clients over (a holder fault that must leave
	// the other clients running).
	DriverProcs int `yaml:"driver_procs"`
	// InterruptRelease is the run's --interrupt-release.
	InterruptRelease bool `yaml:"interrupt_release"`
	// Fence is the run's --fence: count (default) or reject.
	Fence string `yaml:"fence"`
	// ClientGroups is the run's --client-groups: a, b split the clients
	// into clients-a and clients-b, for the sides of network faults.
	ClientGroups []string `yaml:"client_groups"`
	// Expect turns Predicts into checks, per variant: conditions on the
	// cell's figures such as overlaps>0, stale_releases=0,
	// unavailable_ms<800 (see record.Check).
	Expect map[string][]string `yaml:"expect"`
	// Path is the file the scenario was read from (LoadScenario); empty
	// for a built-in one. It is not part of the file format.
	Path string `yaml:"-"`
}

// Ref is how the scenario is named in plans and errors: the file it was
// read from, else its name.
func (s Scenario) Ref() string {
	if s.Path != "" {
		return s.Path
	}
	return s.Name
}

// LookupScenario returns the built-in scenario called name, or reads a
// scenario file when name ends in .yaml or .yml.
func LookupScenario(name string) (Scenario, error) {
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
		return LoadScenario(name)
	}
	i := slices.IndexFunc(Scenarios, func(s Scenario) bool { return s.Name == name })
	if i < 0 {
		var names []string
		for _, s := range Scenarios {
			names = append(names, s.Name)
		}
		return Scenario{}, fmt.Errorf("%w %q (known: %s; or a file.yaml)", ErrBadScenario, name, strings.Join(names, ", "))
	}
	return Scenarios[i], nil
}

// LoadScenario reads a scenario from a YAML file; unknown fields are
// errors.
func LoadScenario(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, fmt.Errorf("%w: %w", ErrBadScenario, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Scenario{}, fmt.Errorf("%w: %s is empty (want a YAML scenario with at least a name)", ErrBadScenario, path)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return Scenario{}, fmt.Errorf("%w: %s: %w", ErrBadScenario, path, err)
	}
	if s.Name == "" {
		return Scenario{}, fmt.Errorf("%w: %s: no name", ErrBadScenario, path)
	}
	s.Path = path
	return s, nil
}
