package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/render"
)

// ErrInterrupted is wrapped by the error of Findings when its context
// ended during a scenario.
var ErrInterrupted = errors.New("interrupted")

// Findings runs every scenario (those named in only, when there are any)
// against its variants, each cell's history checked by porcupine, and
// returns their findings for render.WriteFindings. onScenario, when set,
// is called before each. When ctx ends during a scenario, the error wraps
// ErrInterrupted and names it.
func Findings(ctx context.Context, only []string, onScenario func(plan.Scenario)) ([]render.Finding, error) {
	var findings []render.Finding
	for _, s := range plan.Scenarios {
		if len(only) > 0 && !slices.Contains(only, s.Name) {
			continue
		}
		p, err := plan.Build(&s, plan.Overrides{})
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if onScenario != nil {
			onScenario(s)
		}
		rec, err := Run(ctx, p, Options{History: &HistoryOptions{Check: true}})
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		if rec.Interrupted {
			return nil, fmt.Errorf("%w during scenario %s", ErrInterrupted, s.Name)
		}
		findings = append(findings, render.Finding{Name: s.Name, Tests: s.Tests, Source: s.Source, Predicts: s.Predicts,
			Command: "lockbench run --scenario " + s.Name, Expect: s.Expect, Record: rec})
	}
	return findings, nil
}
