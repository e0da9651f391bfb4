package driver

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/inputerr"
)

// EnvPlaceholder in a manifest's command stands for the directory of the
// library environment it runs: the folder's own (Package.Env) for the
// version the folder pins, an installed one (package driver/install) for
// drv:NAME@VERSION. The driver process finds the same path in LibEnv.
const EnvPlaceholder = "{env}"

// LibEnv names the environment variable that tells a driver process the
// directory of its library environment (a Node driver resolves its library
// from LibEnv/node_modules).
const LibEnv = "LOCKBENCH_DRIVER_ENV"

// Package is where a driver's library comes from: a registry's package,
// the version the driver folder pins, and the versions the driver runs.
type Package struct {
	// Registry is pypi, npm, maven or crates.
	Registry string `json:"registry"`
	// Name is the registry's name: redis, redlock, org.redisson:redisson,
	// rslock.
	Name string `json:"name"`
	// Version is the version the folder pins (make drivers installs it).
	Version string `json:"version"`
	// Supports is the versions the driver runs, constraints separated by
	// spaces (">=3.20.0 <4"); "" for any.
	Supports string `json:"supports,omitempty"`
	// With are the other packages an installed version's environment
	// pins beside it, in the registry's spelling (redis==8.1.0,
	// ioredis@5.4.1, group:artifact:version).
	With []string `json:"with,omitempty"`
	// Env is the pinned version's environment, relative to the folder
	// ("." when empty).
	Env string `json:"env,omitempty"`
	// Command, when set, is the command of an installed version in place
	// of the manifest's: for a driver whose pinned library is the
	// system's (Debian's python3-redis) and another version a venv's.
	Command []string `json:"command,omitempty"`
	// Dir is the driver's folder (Manifest.Dir), set when its manifest is
	// read: a crates package's driver is built from its Cargo project
	// there against each installed version.
	Dir string `json:"-"`
}

// Registries are the registries a Package may name.
var Registries = []string{"pypi", "npm", "maven", "crates"}

// check says what is wrong with p, a manifest's package.
func (p *Package) check() error {
	known := false
	for _, r := range Registries {
		known = known || p.Registry == r
	}
	switch {
	case !known:
		return fmt.Errorf("package registry %q (known: %s)", p.Registry, strings.Join(Registries, ", "))
	case p.Name == "" || p.Version == "":
		return fmt.Errorf("package needs a name and a version")
	}
	_, err := parseConstraints(p.Supports)
	return err
}

// SplitRef splits a driver reference NAME@VERSION; version is "" without
// an @.
func SplitRef(ref string) (name, version string) {
	name, version, _ = strings.Cut(ref, "@")
	return name, version
}

// At is m running its library at version: named NAME@VERSION, its
// command run in the environment envDir. The version must be one m's
// package supports (Supported).
func (m Manifest) At(version, envDir string) Manifest {
	m.Name = m.Name + "@" + version
	m.Version = version
	if m.Package.Command != nil && version != m.Package.Version {
		m.rawCommand = m.Package.Command
	}
	m.setEnv(envDir)
	return m
}

// setEnv makes envDir the environment m's command runs in.
func (m *Manifest) setEnv(envDir string) {
	m.EnvDir = envDir
	m.Command = make([]string, len(m.rawCommand))
	for i, arg := range m.rawCommand {
		m.Command[i] = strings.ReplaceAll(arg, EnvPlaceholder, envDir)
	}
}

// PinnedEnv is the folder's own environment of m: Package.Env below
// Dir, or Dir itself.
func (m Manifest) PinnedEnv() string {
	if m.Package == nil || m.Package.Env == "" {
		return m.Dir
	}
	return filepath.Join(m.Dir, m.Package.Env)
}

// Supported reports whether m's driver runs its library at version: an
// error wrapping ErrUnsupported names the version and the range when not.
func (m Manifest) Supported(version string) error {
	if m.Package == nil {
		return nil
	}
	cs, err := parseConstraints(m.Package.Supports)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if !c.holds(version) {
			return fmt.Errorf("%w: driver %s runs %s %s, not %s", ErrUnsupported, strings.TrimSuffix(m.Name, "@"+version), m.Package.Name, m.Package.Supports, version)
		}
	}
	return nil
}

// CheckRef checks that m, found by the NAME of NAME@VERSION, can take a
// version: its manifest names a package.
func CheckRef(m Manifest, version string) error {
	if m.Package == nil {
		return inputerr.Errorf(ErrBadDriver, "driver %s@%s: %s names no registry package (its manifest has no \"package\"), so it runs only the library its folder has", m.Name, version, m.Name)
	}
	if version == "" || strings.ContainsAny(version, " /\\,=") {
		return inputerr.Errorf(ErrBadDriver, "driver %s@%q: a version is the registry's, e.g. %s@%s", m.Name, version, m.Name, m.Package.Version)
	}
	return nil
}

// constraint is one term of Package.Supports: an operator and a version.
type constraint struct {
	op, version string
}

func parseConstraints(s string) ([]constraint, error) {
	var cs []constraint
	for _, term := range strings.Fields(s) {
		i := strings.IndexFunc(term, func(r rune) bool { return r != '<' && r != '>' && r != '=' })
		if i <= 0 {
			return nil, fmt.Errorf("package supports %q: %q is not an operator (>=, >, <, <=, ==) and a version", s, term)
		}
		c := constraint{op: term[:i], version: term[i:]}
		switch c.op {
		case ">=", ">", "<", "<=", "==":
		default:
			return nil, fmt.Errorf("package supports %q: unknown operator %q (known: >=, >, <, <=, ==)", s, c.op)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

func (c constraint) holds(version string) bool {
	n := CompareVersions(version, c.version)
	switch c.op {
	case ">=":
		return n >= 0
	case ">":
		return n > 0
	case "<":
		return n < 0
	case "<=":
		return n <= 0
	}
	return n == 0
}

// CompareVersions orders two registry versions (-1, 0, 1): by their
// dot-separated release numbers, then a pre-release (5.0.0-beta.2,
// 8.0.0b1, 3.0.0.RC1) before its release, pre-releases by their text.
func CompareVersions(a, b string) int {
	ra, pa := splitVersion(a)
	rb, pb := splitVersion(b)
	for i := range max(len(ra), len(rb)) {
		var x, y int
		if i < len(ra) {
			x = ra[i]
		}
		if i < len(rb) {
			y = rb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case pa == pb:
		return 0
	case pa == "":
		return 1
	case pb == "":
		return -1
	case pa < pb:
		return -1
	}
	return 1
}

// splitVersion is a version's release numbers and what follows them.
func splitVersion(v string) ([]int, string) {
	var nums []int
	rest := v
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			break
		}
		n, _ := strconv.Atoi(rest[:i])
		nums = append(nums, n)
		rest = rest[i:]
		if len(rest) < 2 || rest[0] != '.' || rest[1] < '0' || rest[1] > '9' {
			break
		}
		rest = rest[1:]
	}
	return nums, strings.TrimLeft(rest, ".-")
}
