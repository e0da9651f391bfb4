package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/render"
)

// ErrInterrupted is wrapped by the error of Findings when its context
// ended during a scenario.
var ErrInterrupted = errors.New("interrupted")

// FindingsOptions are what Findings runs.
type FindingsOptions struct {
	// Only names the scenarios to run. Default: all of plan.Scenarios.
	Only []string
	// Drivers are library drivers' variants (drv:NAME) run beside each
	// scenario's designs where they apply (see driverApplies), in a run of
	// their own per scenario. Default: none.
	Drivers []string
	// DriversDir is where the drivers' manifests are. Default
	// driver.DefaultDir().
	DriversDir string
	// Servers run every scenario on each of these servers (redis, valkey
	// or a binary's path: plan.Plan.Servers), a cell per server. Default
	// none: redis-server from PATH.
	Servers []string
	// OnScenario, when set, is called before each scenario with the
	// variants it runs (the designs, then the drivers that apply).
	OnScenario func(s plan.Scenario, drivers []string)
}

// Findings runs every scenario (those of opts.Only, when there are any)
// against its variants, and the drivers of opts.Drivers that apply, each
// cell's history checked by porcupine, and returns their findings for
// render.WriteFindings. A driver's prediction in a scenario is the
// expectation of its analog design (analogOf). Before anything runs, a
// name in opts.Only that is no scenario's fails with plan.ErrBadScenario,
// one in opts.Drivers that is no driver's with driver.ErrBadDriver. When
// ctx ends during a scenario, the error wraps ErrInterrupted and names it.
func Findings(ctx context.Context, opts FindingsOptions) ([]render.Finding, error) {
	for _, name := range opts.Only {
		if _, err := plan.LookupScenario(name); err != nil {
			return nil, fmt.Errorf("--scenarios: %w", err)
		}
	}
	if err := plan.CheckServers("--servers", opts.Servers); err != nil {
		return nil, err
	}
	drivers, err := probeDrivers(ctx, opts.Drivers, opts.DriversDir)
	if err != nil {
		return nil, err
	}
	var findings []render.Finding
	for _, s := range plan.Scenarios {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, s.Name) {
			continue
		}
		f := render.Finding{Name: s.Name, Tests: s.Tests, Source: s.Source, Predicts: s.Predicts,
			Command: "lockbench run --scenario " + s.Name + serversFlag(opts.Servers), Expect: s.Expect}
		var run []string
		for _, d := range drivers {
			analog, notRun := driverApplies(s, d)
			if notRun != "" {
				f.DriversNotRun = append(f.DriversNotRun, render.NotRun{Variant: d.variant, Why: notRun})
				continue
			}
			run = append(run, d.variant)
			if f.Analogs == nil {
				f.Analogs, f.Expect = map[string]string{}, cloneExpect(s.Expect)
			}
			f.Analogs[d.variant] = analog
			f.Expect[d.variant] = s.Expect[analog]
		}
		if opts.OnScenario != nil {
			opts.OnScenario(s, run)
		}
		if f.Record, err = findingsRun(ctx, s, plan.Overrides{Servers: opts.Servers}); err != nil {
			return nil, err
		}
		if len(run) > 0 {
			ov, flags := driversOverrides(s, run)
			ov.DriversDir, ov.Servers = opts.DriversDir, opts.Servers
			f.DriversCommand = f.Command + " " + strings.Join(flags, " ")
			if f.Drivers, err = findingsRun(ctx, s, ov); err != nil {
				return nil, err
			}
		}
		findings = append(findings, f)
	}
	return findings, nil
}

// findingsRun runs scenario s with ov, every history checked.
func findingsRun(ctx context.Context, s plan.Scenario, ov plan.Overrides) (*record.Record, error) {
	p, err := plan.Build(&s, ov)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	rec, err := Run(ctx, p, Options{History: &HistoryOptions{Check: true}})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if rec.Interrupted {
		return nil, fmt.Errorf("%w during scenario %s", ErrInterrupted, s.Name)
	}
	return rec, nil
}

func cloneExpect(e map[string][]string) map[string][]string {
	c := make(map[string][]string, len(e))
	for k, v := range e {
		c[k] = v
	}
	return c
}
