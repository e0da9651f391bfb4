package topologies

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// External is a topology of servers lockbench did not start: one target,
// independent targets, a cluster or a sentinel-monitored master. lockbench
// only uses keys under its own prefix there and never flushes, reconfigures,
// pauses or stops them.
type External struct {
	name   string
	access Access
	nodes  []Node
}

var _ Topology = (*External)(nil)

// OpenExternal returns the topology of servers given by a resolved spec.
// Whether they answer is for the clients to find out.
func OpenExternal(spec Spec) (*External, error) {
	spec, _, err := spec.Resolve()
	if err != nil {
		return nil, err
	}
	tlsConf, err := spec.tlsConfig()
	if err != nil {
		return nil, err
	}
	e := &External{name: spec.Name, access: Access{Mode: spec.Mode()}}
	for i, raw := range spec.Targets {
		ep, err := ParseTarget(raw, spec.TLSInsecure)
		if err != nil {
			return nil, err
		}
		ep.Password = spec.Password
		if ep.TLS != nil && tlsConf != nil {
			ep.TLS.RootCAs = tlsConf.RootCAs
		}
		e.add(fmt.Sprintf("master-%d", i+1), RoleMaster, ep)
	}
	for i, addr := range spec.Cluster {
		e.add(fmt.Sprintf("seed-%d", i+1), RoleMaster, spec.endpoint(addr, tlsConf))
	}
	for i, addr := range spec.Sentinels {
		e.add(fmt.Sprintf("sentinel-%d", i+1), RoleSentinel, spec.endpoint(addr, tlsConf))
	}
	if len(spec.Sentinels) > 0 {
		e.access.MasterName = spec.MasterName
	}
	return e, nil
}

func (e *External) add(name string, role Role, ep Endpoint) {
	e.nodes = append(e.nodes, Node{Name: name, Role: role, Endpoint: ep})
	e.access.Endpoints = append(e.access.Endpoints, ep)
}

// endpoint is a cluster seed or sentinel address with the spec's TLS and
// password.
func (s Spec) endpoint(addr string, tlsConf *tls.Config) Endpoint {
	ep := Endpoint{Addr: addr, Password: s.Password}
	if tlsConf != nil {
		host, _, _ := splitAddr(addr)
		c := tlsConf.Clone()
		c.ServerName = host
		ep.TLS = c
	}
	return ep
}

// tlsConfig is the TLS of cluster and sentinel addresses and the CA of
// rediss:// targets; nil when neither --tls-ca nor --tls-insecure is given.
func (s Spec) tlsConfig() (*tls.Config, error) {
	if s.TLSCA == "" && !s.TLSInsecure {
		return nil, nil
	}
	c := &tls.Config{InsecureSkipVerify: s.TLSInsecure, MinVersion: tls.VersionTLS12}
	if s.TLSCA != "" {
		pem, err := os.ReadFile(s.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("%w: --tls-ca: %w", ErrBadSpec, err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: --tls-ca: no PEM certificate in %s", ErrBadSpec, s.TLSCA)
		}
	}
	return c, nil
}

func (e *External) Name() string         { return e.name }
func (e *External) Access() Access       { return e.access }
func (e *External) Nodes() []Node        { return e.nodes }
func (e *External) Managed() bool        { return false }
func (e *External) Representative() bool { return true }
func (e *External) Close() error         { return nil }
