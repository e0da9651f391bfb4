package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockbench/lockbench/topologies"
)

// topologyFlags are the flags that say where Redis is, shared by run and
// topology up.
type topologyFlags struct {
	name        string
	targets     []string
	cluster     []string
	sentinels   []string
	masterName  string
	tlsCA       string
	tlsInsecure bool
}

func (t *topologyFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.name, "topology", "", "a topology lockbench starts: "+strings.Join(topologies.Names(), ", ")+
		" (default local, embedded without redis-server)")
	fs.StringArrayVar(&t.targets, "target", nil, "an existing server: redis://[user@]host:port[/db] or rediss://...; "+
		"repeat for independent masters (Redlock); password in the URL or $"+topologies.PasswordEnv)
	fs.StringSliceVar(&t.cluster, "cluster", nil, "seed addresses of an existing Redis Cluster: host:port,...")
	fs.StringSliceVar(&t.sentinels, "sentinel", nil, "sentinels of an existing master: host:port,... (with --master-name)")
	fs.StringVar(&t.masterName, "master-name", "", "the master's name at the sentinels")
	fs.StringVar(&t.tlsCA, "tls-ca", "", "PEM file of the CA that signed the servers' certificates (turns TLS on for --cluster and --sentinel)")
	fs.BoolVar(&t.tlsInsecure, "tls-insecure", false, "TLS without checking certificates")
}

// spec checks the flags and returns the resolved spec; errors name the
// flag.
func (t *topologyFlags) spec() (topologies.Spec, error) {
	s := topologies.Spec{Name: t.name, Targets: t.targets, Cluster: t.cluster, Sentinels: t.sentinels,
		MasterName: t.masterName, TLSCA: t.tlsCA, TLSInsecure: t.tlsInsecure}
	for _, raw := range t.targets {
		if _, err := topologies.ParseTarget(raw, t.tlsInsecure); err != nil {
			return s, usagef("--target: %w", err)
		}
	}
	if t.masterName != "" && len(t.sentinels) == 0 {
		return s, usagef("--master-name: goes with --sentinel")
	}
	resolved, _, err := s.Resolve()
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
	if spec.Mode() != topologies.ModeIndependent {
		return
	}
	n := len(spec.Targets)
	if kind, params, err := spec.LocalParams(); err == nil && kind == "redlock" {
		n = params["nodes"]
	}
	if n%2 == 0 {
		fmt.Fprintf(stderr, "lockbench: warning: %d independent masters tolerate no more failures than %d (a majority of %d needs %d)\n",
			n, n-1, n, n/2+1)
	}
}
