package capacity_test

import (
	"fmt"

	"github.com/lockbench/lockbench/capacity"
)

func ExampleFitUSL() {
	// Points from a sweep; here exact values of λ=1000/s, σ=0.05, κ=0.001.
	truth := capacity.USL{Lambda: 1000, Sigma: 0.05, Kappa: 0.001}
	var points []capacity.Point
	for _, n := range []float64{1, 2, 4, 8, 16, 32, 64, 128} {
		points = append(points, capacity.Point{N: n, X: truth.Throughput(n)})
	}
	fit, err := capacity.FitUSL(points)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("λ=%.1f/s σ=%.4f κ=%.5f R²=%.4f over %d points\n", fit.Lambda, fit.Sigma, fit.Kappa, fit.R2, fit.Points)
	n, x := fit.Peak()
	fmt.Printf("peak %.0f acquisitions/s at %.1f clients\n", x, n)
	// Output:
	// λ=1000.0/s σ=0.0500 κ=0.00100 R²=1.0000 over 8 points
	// peak 9038 acquisitions/s at 30.8 clients
}

func ExamplePlanNodes() {
	plan, err := capacity.PlanNodes(100000, 60, 0.7)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d Redis nodes of %.0f acquisitions/s each\n", plan.Nodes, plan.PerNode)
	// Output:
	// 9 Redis nodes of 11667 acquisitions/s each
}
