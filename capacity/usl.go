package capacity

import (
	"errors"
	"fmt"
	"math"
)

var (
	// ErrTooFewPoints is returned by FitUSL when the points hold fewer than
	// three distinct concurrencies, too few to tell σ from κ.
	ErrTooFewPoints = errors.New("capacity: too few points")
	// ErrBadPoint is returned by FitUSL for a point with N < 1, X <= 0, or a
	// NaN or infinite value.
	ErrBadPoint = errors.New("capacity: bad point")
)

// Point is one measured step of a sweep: concurrency N (clients) and
// throughput X (acquisitions/s).
type Point struct {
	N, X float64
}

// USL is Gunther's Universal Scalability Law
// X(N) = λN / (1 + σ(N−1) + κN(N−1)).
type USL struct {
	Lambda float64 `json:"lambda"` // throughput of one client, /s
	Sigma  float64 `json:"sigma"`  // contention (serial fraction), >= 0
	Kappa  float64 `json:"kappa"`  // coherency (crosstalk), >= 0
	R2     float64 `json:"r2"`     // coefficient of determination of the fit on the points
	Points int     `json:"points"` // number of points fitted
}

// Throughput returns the model's throughput X(n) at concurrency n.
func (u USL) Throughput(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

// Peak returns the concurrency N* = sqrt((1−σ)/κ) where the model's
// throughput peaks, and that throughput. N is +Inf when κ == 0: throughput
// then approaches λ/σ, or grows without bound (x = +Inf) when σ == 0 too.
// Concurrency below one client means nothing, so when N* < 1 (which
// includes σ >= 1) Peak returns N = 1 and x = λ: throughput only falls as
// clients are added.
func (u USL) Peak() (n, x float64) {
	if u.Kappa == 0 {
		if u.Sigma == 0 {
			return math.Inf(1), math.Inf(1)
		}
		if u.Sigma >= 1 {
			return 1, u.Lambda
		}
		return math.Inf(1), u.Lambda / u.Sigma
	}
	peak := (1 - u.Sigma) / u.Kappa
	if peak <= 1 {
		return 1, u.Lambda
	}
	n = math.Sqrt(peak)
	return n, u.Throughput(n)
}

// FitUSL fits the Universal Scalability Law to measured points by nonlinear
// least squares on relative residuals, so that every step of a sweep
// weighs the same whatever its throughput. Points may repeat an N (one
// point per repetition); they need not be sorted. The fit needs at least
// three distinct N. R2 is computed on absolute throughputs.
//
// σ and κ are only as well determined as the sweep shows their effect: κ
// needs points where κN² is no longer small, that is near or past the
// peak. With a few percent of noise and a sweep that stops well before the
// peak, κ can be off by tens of percent while λ and σ stay close.
func FitUSL(points []Point) (USL, error) {
	distinct := make(map[float64]bool)
	maxN := 0.0
	for i, p := range points {
		if !(p.N >= 1) || !(p.X > 0) || math.IsInf(p.N, 0) || math.IsInf(p.X, 0) {
			return USL{}, fmt.Errorf("%w: point %d has N=%g, X=%g (need finite N >= 1 and X > 0)", ErrBadPoint, i, p.N, p.X)
		}
		distinct[p.N] = true
		maxN = max(maxN, p.N)
	}
	if len(distinct) < 3 {
		return USL{}, fmt.Errorf("%w: %d distinct concurrencies, need at least 3", ErrTooFewPoints, len(distinct))
	}
	start := linearStart(points)
	fit, err := refine(points, start, maxN)
	if err != nil {
		return USL{}, err
	}
	// The search reaches zero only asymptotically; a σ or κ that changes
	// no modelled throughput by more than 1e-9 (relative) within the
	// measured range is zero.
	if fit.Sigma*(maxN-1) < 1e-9 {
		fit.Sigma = 0
	}
	if fit.Kappa*maxN*(maxN-1) < 1e-9 {
		fit.Kappa = 0
	}
	fit.R2 = rSquared(points, fit)
	fit.Points = len(points)
	return fit, nil
}

// linearStart estimates the parameters from the linearized model: λ from
// the point with the smallest N, then y = N/C − 1 = σ(N−1) + κN(N−1) with
// C = X/λ, solved for σ and κ by least squares without intercept. Negative
// estimates are clamped to zero and the other one solved for alone.
func linearStart(points []Point) USL {
	smallest := points[0]
	for _, p := range points[1:] {
		if p.N < smallest.N {
			smallest = p
		}
	}
	lambda := smallest.X / smallest.N
	// Normal equations of y ≈ σu + κv with u = N−1, v = N(N−1).
	var uu, uv, vv, uy, vy float64
	for _, p := range points {
		u, v := p.N-1, p.N*(p.N-1)
		y := p.N*lambda/p.X - 1
		uu += u * u
		uv += u * v
		vv += v * v
		uy += u * y
		vy += v * y
	}
	det := uu*vv - uv*uv
	sigma := (uy*vv - vy*uv) / det
	kappa := (uu*vy - uv*uy) / det
	switch {
	case math.IsNaN(sigma) || math.IsInf(sigma, 0) || math.IsNaN(kappa) || math.IsInf(kappa, 0):
		// Concurrencies too close together to separate σ from κ in
		// floating point; let the search start from no contention.
		sigma, kappa = 0, 0
	case sigma < 0 && kappa < 0:
		sigma, kappa = 0, 0
	case sigma < 0:
		sigma, kappa = 0, math.Max(0, vy/vv)
	case kappa < 0:
		sigma, kappa = math.Max(0, uy/uu), 0
	}
	return USL{Lambda: lambda, Sigma: sigma, Kappa: kappa}
}

// rSquared is 1 − SSres/SStot of the model on the points' throughputs.
// When every X is equal there is no variance to explain; R2 is then 1 if
// the model reproduces them to rounding and 0 otherwise.
func rSquared(points []Point, u USL) float64 {
	var mean float64
	for _, p := range points {
		mean += p.X / float64(len(points))
	}
	// Sums of squares in units of the mean, which cannot overflow.
	var res, tot float64
	for _, p := range points {
		d := (u.Throughput(p.N) - p.X) / mean
		res += d * d
		tot += (p.X/mean - 1) * (p.X/mean - 1)
	}
	if tot == 0 {
		if res <= 1e-18*float64(len(points)) {
			return 1
		}
		return 0
	}
	return 1 - res/tot
}
