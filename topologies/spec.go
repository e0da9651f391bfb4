package topologies

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Spec says which topology to open: a local one by name, the embedded
// miniredis, or servers lockbench did not start.
type Spec struct {
	// Name is local (= local:single), local:replicated?replicas=2,
	// local:sentinel?replicas=2&sentinels=3, local:cluster?masters=3&replicas=0,
	// local:redlock?nodes=5 or embedded. Default local, or embedded when
	// redis-server is not on PATH and nothing external is given. For an
	// external topology Resolve sets it to target, independent, cluster or
	// sentinel.
	Name string `json:"name"`
	// Targets are servers given by URL: one is a single server, several
	// are independent masters (for Redlock).
	Targets []string `json:"targets,omitempty"`
	// Cluster are seed addresses (host:port) of an external Redis Cluster.
	Cluster []string `json:"cluster,omitempty"`
	// Sentinels are host:port addresses of sentinels that monitor MasterName.
	Sentinels  []string `json:"sentinels,omitempty"`
	MasterName string   `json:"master_name,omitempty"`
	// TLS of the cluster and sentinel addresses (targets say it in their
	// scheme): on when TLSCA or TLSInsecure is set.
	TLSCA       string `json:"tls_ca,omitempty"`
	TLSInsecure bool   `json:"tls_insecure,omitempty"`
	// Password is the password of the servers (targets, cluster nodes,
	// sentinels), with the user a target's URL names. It comes from the
	// environment or a file, never from a flag value, and is never
	// written: not to records, messages or the process list.
	Password string `json:"-"`
	// RedisServer is the server binary of local topologies: redis,
	// valkey, or a binary's path (see ServerBinary). Default: redis-server
	// from PATH.
	RedisServer string `json:"-"`
	// Detached starts a local topology's nodes in their own session and
	// without the parent-death signal, so that they outlive lockbench
	// (lockbench topology up; stop them with StopSaved). Default false:
	// they die with lockbench.
	Detached bool `json:"-"`
	// Proxies, when set, puts every link of a local topology — from the
	// clients, the replicas, the sentinels and the cluster's nodes to each
	// node — through a proxy of its own, for network faults between any
	// two of them (see Proxies). Default nil: every connection is direct.
	Proxies Proxies `json:"-"`
}

// localKinds are the local topologies with their parameters and defaults,
// and the bounds of each parameter.
var localKinds = map[string][]param{
	"single":     nil,
	"replicated": {{"replicas", 2, 1, 8}},
	"sentinel":   {{"replicas", 2, 1, 8}, {"sentinels", 3, 1, 7}},
	"cluster":    {{"masters", 3, 1, 16}, {"replicas", 0, 0, 4}},
	"redlock":    {{"nodes", 5, 1, 15}},
}

type param struct {
	name          string
	def, min, max int
}

// Names lists the topology names Spec accepts, with their defaults.
func Names() []string {
	names := []string{"embedded"}
	for _, k := range []string{"single", "replicated", "sentinel", "cluster", "redlock"} {
		names = append(names, canonical(k, defaults(k)))
	}
	return names
}

func defaults(kind string) map[string]int {
	p := map[string]int{}
	for _, q := range localKinds[kind] {
		p[q.name] = q.def
	}
	return p
}

func canonical(kind string, params map[string]int) string {
	var q []string
	for _, p := range localKinds[kind] {
		q = append(q, p.name+"="+strconv.Itoa(params[p.name]))
	}
	if len(q) == 0 {
		return "local:" + kind
	}
	return "local:" + kind + "?" + strings.Join(q, "&")
}

// parseLocal parses a local topology name into its kind and parameters.
func parseLocal(name string) (kind string, params map[string]int, err error) {
	bad := func(why string) (string, map[string]int, error) {
		return "", nil, fmt.Errorf("%w %q: %s (known: %s)", ErrBadSpec, name, why, strings.Join(Names(), ", "))
	}
	rest, ok := strings.CutPrefix(name, "local")
	if !ok {
		return bad("unknown topology")
	}
	kind, query, _ := strings.Cut(strings.TrimPrefix(rest, ":"), "?")
	if kind == "" {
		kind = "single"
	}
	if rest != "" && !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "?") { // local?cpu=0.2 is local:single's
		return bad("unknown topology")
	}
	spec, known := localKinds[kind]
	if !known {
		return bad("unknown topology")
	}
	params = defaults(kind)
	values, err := url.ParseQuery(query)
	if err != nil {
		return bad("bad parameters")
	}
	for key, vs := range values {
		if key == budgetParam {
			continue // nodeCPU's
		}
		i := slices.IndexFunc(spec, func(p param) bool { return p.name == key })
		if i < 0 {
			var names []string
			for _, p := range spec {
				names = append(names, p.name)
			}
			return "", nil, fmt.Errorf("%w %q: local:%s has no parameter %q (it takes: %s)", ErrBadSpec, name, kind, key, strings.Join(names, ", "))
		}
		n, err := strconv.Atoi(vs[len(vs)-1])
		if p := spec[i]; err != nil || n < p.min || n > p.max {
			return "", nil, fmt.Errorf("%w %q: %s must be a whole number from %d to %d", ErrBadSpec, name, key, p.min, p.max)
		}
		params[key] = n
	}
	return kind, params, nil
}

// IsLocal reports whether lockbench starts the spec's topology (local, local:...).
func (s Spec) IsLocal() bool { return strings.HasPrefix(s.Name, "local") }

// Mode is how clients will reach the data of the spec's topology.
func (s Spec) Mode() Mode {
	switch {
	case strings.HasPrefix(s.Name, "local:cluster"), s.Name == "cluster":
		return ModeCluster
	case strings.HasPrefix(s.Name, "local:redlock"), s.Name == "independent":
		return ModeIndependent
	}
	return ModeSingle
}

// Resolve checks the spec and fills its defaults: the canonical name of a
// local topology, or the kind of an external one. It reports whether it fell
// back to embedded because redis-server is missing.
func (s Spec) Resolve() (Spec, bool, error) {
	external := 0
	for _, given := range [][]string{s.Targets, s.Cluster, s.Sentinels} {
		if len(given) > 0 {
			external++
		}
	}
	if external > 1 {
		return s, false, fmt.Errorf("%w: give one of --target, --cluster or --sentinel", ErrBadSpec)
	}
	if external == 1 {
		if s.Name != "" && !slices.Contains([]string{"target", "independent", "cluster", "sentinel"}, s.Name) {
			return s, false, fmt.Errorf("%w: %q is started by lockbench; --target, --cluster and --sentinel name servers it did not start", ErrBadSpec, s.Name)
		}
		return s.resolveExternal()
	}
	switch {
	case s.Name == "":
		if _, err := redisServerPath(s.RedisServer); err != nil {
			s.Name = "embedded"
			return s, true, nil
		}
		s.Name = "local:single"
	case s.Name == "embedded":
	default:
		kind, params, err := parseLocal(s.Name)
		if err != nil {
			return s, false, err
		}
		if s.Name, err = withBudget(canonical(kind, params), s.Name); err != nil {
			return s, false, err
		}
	}
	return s, false, nil
}

func (s Spec) resolveExternal() (Spec, bool, error) {
	switch {
	case len(s.Targets) == 1:
		s.Name = "target"
	case len(s.Targets) > 1:
		s.Name = "independent"
	case len(s.Cluster) > 0:
		s.Name = "cluster"
	default:
		if s.MasterName == "" {
			return s, false, fmt.Errorf("%w: --sentinel needs --master-name", ErrBadSpec)
		}
		s.Name = "sentinel"
	}
	for _, t := range s.Targets {
		if _, err := ParseTarget(t, s.TLSInsecure); err != nil {
			return s, false, err
		}
	}
	for _, addr := range append(slices.Clone(s.Cluster), s.Sentinels...) {
		if _, port, err := splitAddr(addr); err != nil || port == 0 {
			return s, false, fmt.Errorf("%w: %q is not host:port", ErrBadSpec, addr)
		}
	}
	return s, false, nil
}

// LocalParams returns the kind and parameters of a local spec (after
// Resolve).
func (s Spec) LocalParams() (kind string, params map[string]int, err error) {
	return parseLocal(s.Name)
}

// Redacted returns the spec with any password in its target URLs masked,
// for records and messages.
func (s Spec) Redacted() Spec {
	s.Targets = slices.Clone(s.Targets)
	for i, t := range s.Targets {
		s.Targets[i] = redact(t)
	}
	return s
}
