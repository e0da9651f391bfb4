package runner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/install"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// findingsDriver is a library driver findings runs beside the designs:
// its variant (drv:NAME) and what its init_ok said on a single server.
type findingsDriver struct {
	variant string
	info    driver.Info
}

// probeDrivers starts each driver of names (drv:NAME variants) once on a
// local redis-server of its own and keeps what its init_ok says: the
// modes it serves and its capabilities decide the scenarios it runs in.
func probeDrivers(ctx context.Context, names []string, dir string) ([]findingsDriver, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if dir == "" {
		dir = driver.DefaultDir()
	}
	known, err := driver.Known(dir, nil)
	if err != nil {
		return nil, err
	}
	manifests := make([]driver.Manifest, len(names))
	for i, name := range names {
		bare, ok := plan.DriverName(name)
		if !ok {
			return nil, inputerr.Errorf(driver.ErrBadDriver, "--variants: %q is not a driver's variant (want drv:NAME, e.g. drv:redis-py; the scenarios choose lockbench's own designs)", name)
		}
		if manifests[i], err = install.Find(ctx, known, bare, io.Discard); err != nil {
			return nil, fmt.Errorf("--variants: %w", err)
		}
	}
	local, err := topologies.StartLocal(ctx, topologies.Spec{Name: "local"})
	if err != nil {
		return nil, fmt.Errorf("findings: a redis-server to ask the drivers their capabilities: %w", err)
	}
	defer local.Close()
	cfg := driver.Config{Redis: driver.RedisOf(local.Access()), Prefix: "lockbench:probe:", TTL: variants.DefaultTTL}
	drivers := make([]findingsDriver, len(names))
	for i, m := range manifests {
		p, err := driver.Start(ctx, m, cfg)
		if err != nil {
			return nil, fmt.Errorf("--variants: %s on a single redis-server: %w", names[i], err)
		}
		drivers[i] = findingsDriver{variant: names[i], info: p.Info()}
		_ = p.Close()
	}
	return drivers, nil
}

// driverMode is the Redis mode (wire.Mode*) a driver is given on the
// topology of scenario s.
func driverMode(s plan.Scenario) string {
	spec := topologies.Spec{Name: s.Topology}
	switch {
	case strings.HasPrefix(s.Topology, "local:sentinel"):
		return wire.ModeSentinel
	case spec.Mode() == topologies.ModeCluster:
		return wire.ModeCluster
	case spec.Mode() == topologies.ModeIndependent:
		return wire.ModeMasters
	}
	return wire.ModeSingle
}

// analogOf is lockbench's design whose expectations in scenario s a driver
// of caps on mode is predicted to meet: redlock for Redlock on independent
// masters, the watchdog for a library that renews its leases, fenced for one
// that hands out fencing tokens where s runs fenced (its stale and refused
// writes are predicted of fenced alone), sem-locked for a semaphore where
// s asks for one (a library's semaphore is predicted to keep its limit as
// the seeds' lock-guarded one does), lua-release (SET NX PX, a
// compare-and-delete release) for the others.
func analogOf(s plan.Scenario, mode string, caps wire.Capabilities) string {
	switch {
	case s.Limit > 1 && caps.Semaphore:
		return "sem-locked"
	case mode == wire.ModeMasters:
		return "redlock"
	case caps.Renewal:
		return "watchdog"
	case caps.Fencing && slices.Contains(s.Variants, "fenced"):
		return "fenced"
	}
	return "lua-release"
}

// driverApplies says whether d runs in scenario s: the scenario's topology
// is one of its modes, its limit one it serves, its faults and clocks
// reach a driver's process, and the scenario runs d's analog design (whose
// expectations are d's prediction). It returns the analog, or why not.
func driverApplies(s plan.Scenario, d findingsDriver) (analog, notRun string) {
	caps, mode := d.info.Capabilities, driverMode(s)
	analog = analogOf(s, mode, caps)
	switch {
	case !caps.Supports(mode):
		return "", fmt.Sprintf("serves %s, not %s", strings.Join(caps.Modes, ", "), mode)
	case s.Limit > 1 && !caps.Semaphore:
		return "", "a semaphore scenario; the library is a lock"
	case slices.ContainsFunc(s.Faults, func(f string) bool { return strings.Contains(f, "step-") }):
		return "", "step faults act inside lockbench's variants"
	case strings.HasPrefix(s.Name, "fencing") && !caps.Fencing:
		return "", "no fencing tokens (holder-pause shows the pause itself)"
	case !slices.Contains(s.Variants, analog):
		return "", "the scenario has no design of its kind (" + analog + ")"
	}
	return analog, ""
}

// driversOverrides are the settings of a scenario's drivers run beyond
// the scenario's own: a TTL of lockbench's default (10 s) where the
// scenario gives none (Redlock's libraries have no default, redis-py's
// never expires); one process per client under holder faults, so that a
// pause or a kill takes one holder as it does for lockbench's designs; a
// process per client group otherwise, so that each group has one.
func driversOverrides(s plan.Scenario, drivers []string) (plan.Overrides, []string) {
	ov := plan.Overrides{Variants: drivers}
	flags := []string{"--variants " + strings.Join(drivers, ",")}
	if s.TTL == "" {
		ttl := variants.DefaultTTL
		ov.TTL = &ttl
		flags = append(flags, "--ttl "+ttl.String())
	}
	procs := max(len(s.ClientGroups), 1)
	if slices.ContainsFunc(s.Faults, func(f string) bool { return strings.Contains(f, "holder-") }) && len(s.Clients) > 0 {
		procs = slices.Max(s.Clients)
	}
	if procs > 1 {
		ov.DriverProcs = &procs
		flags = append(flags, "--driver-procs "+strconv.Itoa(procs))
	}
	return ov, flags
}
