package plan

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrBadScenario is wrapped by every scenario lookup and file error.
var ErrBadScenario = errors.New("bad scenario")

// Scenario is a named experiment: the settings of a run that reproduces a
// claim of the literature, with where the claim comes from and what it
// predicts. Every setting is optional; flags given on the command line
// override it. The same fields make the YAML file format.
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
	// Fence is the run's --fence: count (default) or reject.
	Fence string `yaml:"fence"`
	// Expect turns Predicts into checks, per variant: conditions on the
	// cell's figures such as overlaps>0, stale_releases=0,
	// unavailable_ms<800 (see results.Check).
	Expect map[string][]string `yaml:"expect"`
}

// Args are the run flags the scenario sets, to be followed by the user's
// own, which win.
func (s Scenario) Args() []string {
	var args []string
	add := func(flag, value string) {
		if value != "" {
			args = append(args, "--"+flag, value)
		}
	}
	add("variants", strings.Join(s.Variants, ","))
	add("topology", s.Topology)
	var clients []string
	for _, n := range s.Clients {
		clients = append(clients, strconv.Itoa(n))
	}
	add("clients", strings.Join(clients, ","))
	if s.Keys > 0 {
		add("keys", strconv.Itoa(s.Keys))
	}
	if s.Limit > 0 {
		add("limit", strconv.Itoa(s.Limit))
	}
	if s.Repeat > 0 {
		add("repeat", strconv.Itoa(s.Repeat))
	}
	add("ttl", s.TTL)
	add("hold", s.Hold)
	add("think", s.Think)
	add("duration", s.Duration)
	add("warmup", s.Warmup)
	add("acquire-timeout", s.AcquireTimeout)
	add("retry", s.Retry)
	add("clock-skew", s.ClockSkew)
	for _, j := range s.ClockJumps {
		add("clock-jump", j)
	}
	for _, f := range s.Faults {
		add("fault", f)
	}
	add("fence", s.Fence)
	return args
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
	return s, nil
}
