package capacity

// Knee finds, in points sorted by N, the last point before throughput stops
// rising: at the first i whose X is less than (1+minGain) × the best X so
// far, it returns the index of the best point before i; if throughput kept
// rising by at least minGain at every step it returns the last index. A
// minGain of 0.05 treats a step that gains less than 5 % as the knee. Knee
// returns -1 for no points.
func Knee(points []Point, minGain float64) int {
	if len(points) == 0 {
		return -1
	}
	best := 0
	for i := 1; i < len(points); i++ {
		if points[i].X < (1+minGain)*points[best].X {
			return best
		}
		if points[i].X > points[best].X {
			best = i
		}
	}
	return len(points) - 1
}
