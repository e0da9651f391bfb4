package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/topologies"
)

// topologyFlags are the flags that say where Redis is, shared by run and
// topology up.
type topologyFlags struct {
	name         string
	targets      []string
	cluster      []string
	sentinels    []string
	masterName   string
	tlsCA        string
	tlsInsecure  bool
	passwordFile string
}

func (t *topologyFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.name, "topology", "", "a topology lockbench starts, by `NAME`: "+strings.Join(topologies.Names(), ", ")+
		" (default local, embedded without redis-server)")
	fs.StringArrayVar(&t.targets, "target", nil, "an existing server's `URL`: redis://[user@]host:port[/db] or rediss://...; "+
		"repeat for independent masters (Redlock); the password comes from $"+topologies.PasswordEnv+" or --password-file, never the URL")
	fs.StringSliceVar(&t.cluster, "cluster", nil, "seed `ADDRS` of an existing Redis Cluster: host:port,...")
	fs.StringSliceVar(&t.sentinels, "sentinel", nil, "the sentinels of an existing master, `ADDRS` host:port,... (with --master-name)")
	fs.StringVar(&t.masterName, "master-name", "", "the master's `NAME` at the sentinels")
	fs.StringVar(&t.tlsCA, "tls-ca", "", "PEM `FILE` of the CA that signed the servers' certificates (turns TLS on for --cluster and --sentinel)")
	fs.BoolVar(&t.tlsInsecure, "tls-insecure", false, "TLS without checking certificates")
	fs.StringVar(&t.passwordFile, "password-file", "", "a `FILE` whose first line is the servers' password (default $"+topologies.PasswordEnv+"); a password is never taken from a flag value")
}

// override checks the flags and returns their resolved spec when one of
// them says where Redis is (--topology, --target, --cluster, --sentinel);
// nil when none does, which leaves the topology to the scenario, else the
// default.
func (t *topologyFlags) override(changed func(flag string) bool) (*topologies.Spec, error) {
	spec, err := t.spec()
	if err != nil || !slices.ContainsFunc([]string{"topology", "target", "cluster", "sentinel"}, changed) {
		return nil, err
	}
	return &spec, nil
}

// spec checks the flags and returns the resolved spec; errors name the
// flag.
func (t *topologyFlags) spec() (topologies.Spec, error) {
	s := topologies.Spec{Name: t.name, Targets: t.targets, Cluster: t.cluster, Sentinels: t.sentinels,
		MasterName: t.masterName, TLSCA: t.tlsCA, TLSInsecure: t.tlsInsecure}
	var err error
	if s.Password, err = topologies.ReadPassword(t.passwordFile); err != nil {
		return s, err
	}
	for _, raw := range t.targets {
		if _, err := topologies.ParseTarget(raw, t.tlsInsecure); err != nil {
			return s, usagef("--target: %w", err)
		}
	}
	if t.masterName != "" && len(t.sentinels) == 0 {
		return s, usagef("--master-name: goes with --sentinel")
	}
	resolved, _, err := s.Resolve()
	resolved.Password = s.Password
	if err != nil {
		flag := "--topology"
		switch {
		case len(t.cluster) > 0:
			flag = "--cluster"
		case len(t.sentinels) > 0:
			flag = "--sentinel"
		}
		return s, usagef("%s: %w", flag, err)
	}
	return resolved, nil
}

// warnEvenRedlock says that an even number of independent masters buys no
// fault tolerance over one fewer.
func warnEvenRedlock(stderr io.Writer, spec topologies.Spec) {
	if w := topologies.EvenMastersWarning(spec); w != "" {
		fmt.Fprintln(stderr, "lockbench: warning: "+w)
	}
}
