package capacity

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// refine minimizes the sum of squared relative residuals ((X(N)−X)/X)² over
// all three parameters with Nelder–Mead, starting from start; maxN is the
// largest N of the points. It searches over x = (ln(λ/λ0), √σ, √κ), so λ
// stays positive and σ, κ non-negative without constraints. Nelder–Mead can stall on a collapsed simplex, so
// the search restarts from its best point with a fresh simplex until a
// restart no longer improves the cost.
func refine(points []Point, start USL, maxN float64) (USL, error) {
	lambda0 := start.Lambda
	model := func(x []float64) USL {
		return USL{Lambda: lambda0 * math.Exp(x[0]), Sigma: x[1] * x[1], Kappa: x[2] * x[2]}
	}
	cost := func(x []float64) float64 {
		u := model(x)
		var sum float64
		for _, p := range points {
			r := (u.Throughput(p.N) - p.X) / p.X
			sum += r * r
		}
		return sum
	}
	best := []float64{0, math.Sqrt(start.Sigma), math.Sqrt(start.Kappa)}
	bestCost := cost(best)
	// Simplex steps: 10 % on λ, and on σ and κ half the start value or,
	// when that is near zero, a step that changes X(maxN) noticeably.
	steps := []float64{0.1, 0.5*best[1] + 0.1, 0.5*best[2] + 0.1/maxN}
	for restart := 0; restart < 10; restart++ {
		vertices := [][]float64{append([]float64(nil), best...)}
		values := []float64{bestCost}
		for i, step := range steps {
			v := append([]float64(nil), best...)
			v[i] += step
			vertices = append(vertices, v)
			values = append(values, cost(v))
		}
		settings := &optimize.Settings{
			Converger:       &optimize.FunctionConverge{Absolute: 1e-30, Relative: 1e-12, Iterations: 200},
			FuncEvaluations: 20000,
		}
		method := &optimize.NelderMead{InitialVertices: vertices, InitialValues: values}
		result, err := optimize.Minimize(optimize.Problem{Func: cost}, best, settings, method)
		if err != nil && result == nil {
			return USL{}, fmt.Errorf("capacity: USL fit: %w", err)
		}
		if !(result.F < bestCost) {
			break
		}
		improved := bestCost - result.F
		best, bestCost = result.X, result.F
		if improved <= 1e-12*bestCost {
			break
		}
		for i := range steps {
			steps[i] *= 0.5
		}
	}
	return model(best), nil
}
