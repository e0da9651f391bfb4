package capacity

import "testing"

func TestKnee(t *testing.T) {
	ladder := func(xs ...float64) []Point {
		points := make([]Point, len(xs))
		for i, x := range xs {
			points[i] = Point{N: float64(int(1) << i), X: x}
		}
		return points
	}
	tests := []struct {
		name    string
		points  []Point
		minGain float64
		want    int
	}{
		{"no points", nil, 0.05, -1},
		{"one point", ladder(100), 0.05, 0},
		{"keeps rising", ladder(100, 190, 350, 600), 0.05, 3},
		{"flattens", ladder(100, 190, 350, 360, 365), 0.05, 2},
		{"falls", ladder(100, 190, 350, 300, 200), 0.05, 2},
		{"first step already flat", ladder(100, 102, 200), 0.05, 0},
		{"gain exactly minGain still rises", ladder(100, 105, 200), 0.05, 2},
		{"zero minGain: a tie is not a rise, the earlier point is best", ladder(100, 100, 90), 0, 0},
		{"zero minGain keeps a tie", ladder(100, 150, 150, 160), 0, 3},
		{"later rise after the knee is ignored", ladder(100, 190, 200, 900), 0.1, 1},
		{"reference model", synthetic(reference, sweep, nil), 0.05, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Knee(tt.points, tt.minGain); got != tt.want {
				t.Errorf("Knee(%v, %v) = %d, want %d", tt.points, tt.minGain, got, tt.want)
			}
		})
	}
}
