package capacity

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// sweep is the concurrency ladder of the synthetic tests.
var sweep = []float64{1, 2, 4, 8, 16, 32, 64, 128}

// reference is the model the synthetic points are generated from.
var reference = USL{Lambda: 1000, Sigma: 0.05, Kappa: 0.001}

// synthetic returns the points of model u at every n, each throughput
// multiplied by 1+noise[i] when noise is given.
func synthetic(u USL, ns []float64, noise []float64) []Point {
	points := make([]Point, len(ns))
	for i, n := range ns {
		x := u.Throughput(n)
		if noise != nil {
			x *= 1 + noise[i]
		}
		points[i] = Point{N: n, X: x}
	}
	return points
}

// relErr is |got−want|/want, or |got| when want is zero.
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / want
}

// sameValue reports whether got is want to rounding; infinities must match.
func sameValue(got, want float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return relErr(got, want) <= 1e-12
}

func TestFitUSLExactPoints(t *testing.T) {
	// Exact points leave nothing to trade off: the fit must land on the
	// generating parameters to rounding, far inside the 5 % the planning
	// needs. Zero parameters must come back as exactly zero.
	const tolerance = 1e-6
	repeated := append(synthetic(reference, sweep, nil), synthetic(reference, sweep, nil)...)
	shuffled := synthetic(reference, []float64{64, 1, 16, 128, 2, 32, 8, 4}, nil)
	tests := []struct {
		name   string
		want   USL
		points []Point
	}{
		{"usl", reference, synthetic(reference, sweep, nil)},
		{"amdahl", USL{Lambda: 1000, Sigma: 0.05}, synthetic(USL{Lambda: 1000, Sigma: 0.05}, sweep, nil)},
		{"linear", USL{Lambda: 1000}, synthetic(USL{Lambda: 1000}, sweep, nil)},
		{"coherency only", USL{Lambda: 1000, Kappa: 0.002}, synthetic(USL{Lambda: 1000, Kappa: 0.002}, sweep, nil)},
		{"steep retrograde", USL{Lambda: 300, Sigma: 0.3, Kappa: 0.01}, synthetic(USL{Lambda: 300, Sigma: 0.3, Kappa: 0.01}, sweep, nil)},
		{"sweep from 2", reference, synthetic(reference, []float64{2, 4, 8, 16, 32, 64, 128, 256}, nil)},
		{"three points", reference, synthetic(reference, []float64{1, 8, 64}, nil)},
		{"repetitions", reference, repeated},
		{"unsorted", reference, shuffled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FitUSL(tt.points)
			if err != nil {
				t.Fatalf("FitUSL: %v", err)
			}
			t.Logf("relative errors: λ %.1e, σ %.1e, κ %.1e; R2 %.12f",
				relErr(got.Lambda, tt.want.Lambda), relErr(got.Sigma, tt.want.Sigma), relErr(got.Kappa, tt.want.Kappa), got.R2)
			if relErr(got.Lambda, tt.want.Lambda) > tolerance ||
				relErr(got.Sigma, tt.want.Sigma) > tolerance ||
				relErr(got.Kappa, tt.want.Kappa) > tolerance {
				t.Errorf("FitUSL = %+v, want λ=%g σ=%g κ=%g within %g", got, tt.want.Lambda, tt.want.Sigma, tt.want.Kappa, tolerance)
			}
			if tt.want.Sigma == 0 && got.Sigma != 0 || tt.want.Kappa == 0 && got.Kappa != 0 {
				t.Errorf("FitUSL = %+v, want zero parameters exactly zero", got)
			}
			if got.R2 < 1-1e-9 {
				t.Errorf("R2 = %v, want 1 on exact points", got.R2)
			}
			if got.Points != len(tt.points) {
				t.Errorf("Points = %d, want %d", got.Points, len(tt.points))
			}
		})
	}
}

func TestFitUSLNoisyPoints(t *testing.T) {
	// Fixed ±2 % multiplicative patterns, not random, so the bounds are
	// what the least-squares minimum gives for exactly these points. The
	// bounds are the measured worst case over the patterns, rounded up:
	// λ 1.8 %, σ 4.9 %, κ 3.4 %, peak concurrency N* 1.9 %.
	patterns := map[string][]float64{
		"alternating":          {0.02, -0.02, 0.02, -0.02, 0.02, -0.02, 0.02, -0.02},
		"alternating inverted": {-0.02, 0.02, -0.02, 0.02, -0.02, 0.02, -0.02, 0.02},
		"mixed":                {0.02, -0.01, 0, 0.015, -0.02, 0.01, -0.015, 0.02},
		"tilt":                 {-0.02, -0.015, -0.01, -0.005, 0.005, 0.01, 0.015, 0.02},
	}
	wantPeakN, _ := reference.Peak()
	for name, noise := range patterns {
		t.Run(name, func(t *testing.T) {
			got, err := FitUSL(synthetic(reference, sweep, noise))
			if err != nil {
				t.Fatalf("FitUSL: %v", err)
			}
			peakN, _ := got.Peak()
			errLambda, errSigma, errKappa := relErr(got.Lambda, reference.Lambda), relErr(got.Sigma, reference.Sigma), relErr(got.Kappa, reference.Kappa)
			errPeak := relErr(peakN, wantPeakN)
			t.Logf("relative errors: λ %.2f %%, σ %.2f %%, κ %.2f %%, N* %.2f %%; R2 %.5f",
				100*errLambda, 100*errSigma, 100*errKappa, 100*errPeak, got.R2)
			if errLambda > 0.02 || errSigma > 0.05 || errKappa > 0.05 || errPeak > 0.025 {
				t.Errorf("FitUSL = %+v, want λ within 2 %%, σ and κ within 5 %%, N* within 2.5 %% of %+v", got, reference)
			}
			if got.R2 < 0.99 {
				t.Errorf("R2 = %v, want >= 0.99", got.R2)
			}
		})
	}
}

func TestFitUSLErrors(t *testing.T) {
	good := synthetic(reference, sweep, nil)
	with := func(i int, p Point) []Point {
		points := append([]Point(nil), good...)
		points[i] = p
		return points
	}
	tests := []struct {
		name   string
		points []Point
		want   error
	}{
		{"no points", nil, ErrTooFewPoints},
		{"two points", good[:2], ErrTooFewPoints},
		{"two distinct N", []Point{{1, 1000}, {2, 1900}, {2, 1950}, {1, 990}}, ErrTooFewPoints},
		{"N below 1", with(3, Point{N: 0.5, X: 100}), ErrBadPoint},
		{"N zero", with(0, Point{N: 0, X: 100}), ErrBadPoint},
		{"X zero", with(2, Point{N: 4, X: 0}), ErrBadPoint},
		{"X negative", with(2, Point{N: 4, X: -1}), ErrBadPoint},
		{"N NaN", with(1, Point{N: math.NaN(), X: 100}), ErrBadPoint},
		{"X NaN", with(1, Point{N: 2, X: math.NaN()}), ErrBadPoint},
		{"N infinite", with(1, Point{N: math.Inf(1), X: 100}), ErrBadPoint},
		{"X infinite", with(1, Point{N: 2, X: math.Inf(1)}), ErrBadPoint},
		{"bad point among too few", []Point{{1, 1000}, {0, 5}}, ErrBadPoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FitUSL(tt.points)
			if !errors.Is(err, tt.want) {
				t.Fatalf("FitUSL error = %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "capacity: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestPeak(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name         string
		model        USL
		wantN, wantX float64
	}{
		{"usl", reference, math.Sqrt(0.95 / 0.001), reference.Throughput(math.Sqrt(0.95 / 0.001))},
		{"coherency only", USL{Lambda: 1000, Kappa: 0.0025}, 20, 1000 * 20 / (1 + 0.0025*20*19)},
		{"amdahl", USL{Lambda: 1000, Sigma: 0.05}, inf, 1000 / 0.05},
		{"linear", USL{Lambda: 1000}, inf, inf},
		{"peak below one client", USL{Lambda: 1000, Sigma: 0.5, Kappa: 1}, 1, 1000},
		{"serial fraction one", USL{Lambda: 1000, Sigma: 1}, 1, 1000},
		{"serial fraction above one", USL{Lambda: 1000, Sigma: 1.5, Kappa: 0.01}, 1, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, x := tt.model.Peak()
			if !sameValue(n, tt.wantN) || !sameValue(x, tt.wantX) {
				t.Errorf("Peak() = %v, %v; want %v, %v", n, x, tt.wantN, tt.wantX)
			}
			if math.IsInf(n, 0) {
				return
			}
			// The closed form must be the maximum of the model for N >= 1.
			for _, other := range []float64{max(1, n*0.99), n * 1.01, n + 1} {
				if tt.model.Throughput(other) > x*(1+1e-12) {
					t.Errorf("Throughput(%v) = %v exceeds the peak %v at N=%v", other, tt.model.Throughput(other), x, n)
				}
			}
		})
	}
}
